import { z } from "zod";
import { defineJob } from "../jobs/job.ts";
import type { StatusService } from "./status.service.ts";

/**
 * Every minute: a worker records its heartbeat, one sample per status-page component, and
 * opens or resolves incidents (status/status.service.ts). A minute without it is itself a
 * signal: the background jobs component turns down.
 */
export const statusSampleJob = defineJob({
  name: "status-sample",
  payload: z.object({}),
  queue: { policy: "singleton", retryLimit: 0, expireInSeconds: 120 },
  cron: "* * * * *",
  scheduleData: {},
  async handler(_payload, ctx: { status: Pick<StatusService, "sample"> }) {
    await ctx.status.sample();
  },
});
