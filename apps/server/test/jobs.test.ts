import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AppContext } from "../src/context.ts";
import { defineJob } from "../src/jobs/job.ts";
import { createJobQueue } from "../src/jobs/queue.ts";
import { createTestApp, type TestApp } from "./support/app.ts";

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

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { jobs: [flaky, once] });
});
afterAll(async () => {
  await t.close();
});

async function until(check: () => boolean, ms = 15_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("job queue", () => {
  it("refuses a payload its schema rejects, before anything is queued", async () => {
    await expect(t.ctx.queue.send(flaky, { value: "x" as unknown as number })).rejects.toThrow();
  });

  it("runs a job in a worker and retries a failure", async () => {
    await t.ctx.queue.work(t.ctx);
    const id = await t.ctx.queue.send(flaky, { value: 42 });
    expect(id).toBeTruthy();
    await until(() => seen.length === 1);
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
