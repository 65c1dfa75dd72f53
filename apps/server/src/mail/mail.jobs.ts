import { z } from "zod";
import { defineJob } from "../jobs/job.ts";

/**
 * Delivers one outbox message (mail.service.ts `deliver`). The row, not the job, decides: a
 * job that finds its message sent, failed or taken by a live attempt does nothing or waits, so
 * a duplicate or retried job never sends twice. SMTP failures are retried by the service with
 * its own backoff (a new job at the next attempt's time); pg-boss's retries cover the rest (a
 * worker that died, a message another attempt still holds).
 */
export const deliverMailJob = defineJob({
  name: "mail-deliver",
  payload: z.object({ id: z.uuid() }),
  queue: {
    retryLimit: 12,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 120,
    expireInSeconds: 10 * 60,
    heartbeatSeconds: 10,
  },
  concurrency: 2,
  pollingIntervalSeconds: 1,
  async handler({ id }, ctx: { mail: { deliver(id: string): Promise<void> } }) {
    await ctx.mail.deliver(id);
  },
});

/**
 * Every minute: queues again what lost its job (a process that stopped between recording a
 * message and queueing it) and settles attempts whose worker died (mail.service.ts `sweep`).
 */
export const mailSweepJob = defineJob({
  name: "mail-sweep",
  payload: z.object({}),
  queue: { policy: "singleton", retryLimit: 0, expireInSeconds: 120 },
  cron: "* * * * *",
  scheduleData: {},
  async handler(_payload, ctx: { mail: { sweep(): Promise<number> } }) {
    await ctx.mail.sweep();
  },
});
