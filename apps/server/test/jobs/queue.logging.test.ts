import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineJob } from "../../src/jobs/job.ts";
import { asError } from "../../src/lib/log.ts";
import { REDACT } from "../../src/lib/logger.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { until } from "../support/wait.ts";

// What a worker logs when it stops gracefully with a job in flight, and how errors reach the
// log: as `err` with their message and stack, never as "[object Object]".

const lines: string[] = [];
const log = pino(
  { level: "info", redact: REDACT },
  new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  }),
);

let started = 0;
/** Runs until the worker's stop aborts it (then throws, as a handler that can stop does). */
const hold = defineJob({
  name: "test-hold",
  payload: z.object({}),
  async handler(_payload, _deps: unknown, job) {
    started++;
    await new Promise<void>((_resolve, reject) => {
      job.signal?.addEventListener("abort", () => reject(job.signal?.reason), { once: true });
    });
  },
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { jobs: [hold], log });
});
afterAll(async () => {
  await t.close();
});

const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe("a worker's log", () => {
  it("logs no error and no [object Object] through a graceful stop with a job in flight", async () => {
    await t.ctx.queue.work(t.ctx);
    await t.ctx.queue.send(hold, {});
    await until(
      async () => started,
      (n) => n === 1,
    );
    await t.ctx.queue.stop({ graceMs: 100, unwindMs: 2000 });
    // The job went back to the queue rather than failing.
    const { rows } = await t.ctx.pool.query<{ state: string; retry_count: number }>(
      `SELECT state, retry_count FROM ${t.ctx.queueSchema}.job WHERE name = 'test-hold'`,
    );
    expect(rows).toEqual([{ state: "retry", retry_count: 0 }]);
    for (const line of lines) expect(line).not.toContain("[object Object]");
    // A graceful stop is no error (pg-boss's report that its closed connection could not settle
    // the handed-back job is not one either). That report comes from the worker's loop after the
    // stop returns: wait until every pg-boss worker has left its loop, so all it says is logged.
    await until(
      async () => t.ctx.queue.boss.getWipData(),
      (workers) => workers.length === 0,
      10_000,
    );
    expect(parsed().filter((e) => Number(e.level) >= 50)).toEqual([]);
  });

  it("writes an error pg-boss emits as a plain object with its message, stack and fields", async () => {
    const cause = new Error("connection lost");
    lines.length = 0;
    // pg-boss's workers emit `{ ...error, message, stack, queue, worker }`, not an Error.
    t.ctx.queue.boss.emit("error", {
      ...cause,
      message: cause.message,
      stack: cause.stack,
      queue: "test-hold",
      worker: "w1",
    } as unknown as Error);
    const [entry] = parsed();
    expect(entry?.msg).toBe("job queue error");
    expect(entry?.err).toMatchObject({
      message: "connection lost",
      stack: expect.stringMatching(/^Error: connection lost\n\s+at /),
      queue: "test-hold",
      worker: "w1",
    });
    for (const line of lines) expect(line).not.toContain("[object Object]");
  });

  it("writes any thrown value as an error with a message and a stack", () => {
    const thrown = new TypeError("bad");
    expect(asError(thrown)).toBe(thrown);
    const text = asError("plain words");
    expect(text.message).toBe("plain words");
    expect(text.stack).toMatch(/\n\s+at /);
    const odd = asError({ code: 7 });
    expect(odd.message).toBe("{ code: 7 }");
    expect(odd.stack).toMatch(/\n\s+at /);
    lines.length = 0;
    log.error(
      { err: asError({ message: "as emitted", stack: "Error: as emitted\n    at x" }) },
      "e",
    );
    expect(parsed()[0]?.err).toMatchObject({
      message: "as emitted",
      stack: "Error: as emitted\n    at x",
    });
  });
});
