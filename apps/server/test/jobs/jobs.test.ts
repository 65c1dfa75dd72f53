import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { AppContext } from "../../src/context.ts";
import { defineJob } from "../../src/jobs/job.ts";
import { createJobQueue } from "../../src/jobs/queue.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

const seen: { value: number; retryCount: number }[] = [];
let failuresLeft = 1;

const flaky = defineJob({
  name: "test-flaky",
  payload: z.object({ value: z.number().int() }),
  queue: { retryLimit: 3, retryDelay: 0, retryBackoff: false },
  async handler(payload, _deps: AppContext, job) {
    if (failuresLeft > 0) {
      failuresLeft -= 1;
      throw new Error("transient");
    }
    seen.push({ value: payload.value, retryCount: job.retryCount });
  },
});

const once = defineJob({
  name: "test-once",
  payload: z.object({ key: z.string() }),
  queue: { policy: "singleton" },
  async handler() {},
});

const drained: number[] = [];
/** Polls only every 30 s: anything faster comes from the queue's wake-ups. */
const slow = defineJob({
  name: "test-slow-poll",
  payload: z.object({ n: z.number().int() }),
  concurrency: 1,
  pollingIntervalSeconds: 30,
  async handler({ n }) {
    drained.push(n);
  },
});

/** How many `test-spread` handlers run at once, and the latch that lets them finish. */
let spreading = 0;
let peakSpread = 0;
let release = () => {};
const released = new Promise<void>((r) => {
  release = r;
});
/** Three slots polling every 5 s between them; each slot's own poll is the 30 s backstop. */
const spread = defineJob({
  name: "test-spread",
  payload: z.object({ n: z.number().int() }),
  concurrency: 3,
  pollingIntervalSeconds: 5,
  async handler() {
    spreading++;
    peakSpread = Math.max(peakSpread, spreading);
    await released;
    spreading--;
  },
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { jobs: [flaky, once, slow, spread] });
});
afterAll(async () => {
  await t.close();
});

describe("job queue", () => {
  it("refuses a payload its schema rejects, before anything is queued", async () => {
    await expect(t.ctx.queue.send(flaky, { value: "x" as unknown as number })).rejects.toThrow();
  });

  it("a worker keeps fetching while jobs are ready, and a new job wakes an idle worker", async () => {
    // Five jobs wait before the worker starts: one slot takes them one after another without
    // waiting out its 30 s poll between them.
    await t.ctx.queue.boss.insert(
      slow.name,
      [1, 2, 3, 4, 5].map((n) => ({ data: { n } })),
    );
    await t.ctx.queue.work(t.ctx);
    await vi.waitFor(() => expect(drained).toHaveLength(5), { timeout: 15_000 });
    // The slot is idle now, in its 30 s poll delay: a job sent now wakes it.
    await t.ctx.queue.send(slow, { n: 6 });
    await vi.waitFor(() => expect(drained).toHaveLength(6), { timeout: 15_000 });
    expect(drained.sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("jobs that come due together run in every slot at once, though one idle slot polls", async () => {
    // Due in 2 s: the NOTIFY of their insert finds nothing to run yet, so only polling finds
    // them, and one slot's poll (every 5 s) finds the first; each slot that gets one wakes
    // another at once. (Woken only by the polls, the third would start 10 s after the first.)
    const startAfter = new Date(Date.now() + 2000);
    await t.ctx.queue.boss.insert(
      spread.name,
      [1, 2, 3].map((n) => ({ data: { n }, startAfter })),
    );
    await vi.waitFor(() => expect(peakSpread).toBe(3), { timeout: 12_000 });
    release();
    await vi.waitFor(() => expect(spreading).toBe(0), { timeout: 15_000 });
  });

  it("runs a job in a worker and retries a failure", async () => {
    const id = await t.ctx.queue.send(flaky, { value: 42 });
    expect(id).toBeTruthy();
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 15_000 });
    expect(seen[0]).toEqual({ value: 42, retryCount: 1 });
  });

  it("creates queues with the registry's policies", async () => {
    const queue = await t.ctx.queue.boss.getQueue("test-once");
    expect(queue?.policy).toBe("singleton");
    expect(queue?.retryLimit).toBe(5);
  });
});

describe("restarting with existing queues", () => {
  it("starts again on the same database without touching fixed queue options", async () => {
    const again = createJobQueue<AppContext>({
      connectionString: t.ctx.databaseUrl,
      schema: t.ctx.queueSchema,
      jobs: [flaky, { ...once, queue: { policy: "singleton", retryLimit: 7 } }],
    });
    await again.start();
    try {
      const queue = await again.boss.getQueue("test-once");
      expect(queue?.policy).toBe("singleton");
      expect(queue?.retryLimit).toBe(7);
    } finally {
      await again.stop();
    }
  });
});
