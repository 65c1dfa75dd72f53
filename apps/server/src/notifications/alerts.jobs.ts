import { z } from "zod";
import { defineJob } from "../jobs/job.ts";
import type { Alerts } from "./alerts.ts";

/**
 * Every 15 minutes: tokens that will end and cannot be renewed, paid accounts without a
 * successful sync for 24 h, the day's summary of failed backups per account, stories that
 * expired unsaved. Each event is told once (its key), however often this runs or retries.
 */
export const alertsCheckJob = defineJob({
  name: "alerts-check",
  payload: z.object({}),
  queue: { policy: "singleton", retryLimit: 2 },
  cron: "*/15 * * * *",
  scheduleData: {},
  async handler(_payload, ctx: { alerts: Pick<Alerts, "check"> }) {
    await ctx.alerts.check();
  },
});

/** Mondays 08:00 UTC: the weekly digest to users who turned it on (one per ISO week). */
export const weeklyDigestJob = defineJob({
  name: "weekly-digest",
  payload: z.object({}),
  queue: { policy: "singleton", retryLimit: 3 },
  cron: "0 8 * * 1",
  scheduleData: {},
  async handler(_payload, ctx: { alerts: Pick<Alerts, "weeklyDigest"> }) {
    await ctx.alerts.weeklyDigest();
  },
});
