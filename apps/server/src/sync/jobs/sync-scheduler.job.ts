import { z } from "zod";
import { automaticBackupTiers } from "../../billing/index.ts";
import { defineJob, type JobSender } from "../../jobs/job.ts";
import type { Clock } from "../../lib/clock.ts";
import type { AccountsRepository } from "../account-directory.repository.ts";
import { spreadOffsetSeconds, syncThisInterval } from "../schedule.ts";
import { syncAccountJob } from "./sync-account.job.ts";

/**
 * Every 10 minutes: one scheduled sync per active account of a plan with automatic backups
 * (tier rules), except accounts a downgrade paused,
 * each delayed by its account's stable offset so they spread over the interval. The
 * `stately` key drops a new one while the previous is still waiting. An account whose last
 * sync saw high Graph usage syncs less often (schedule.ts), before Graph throttles it.
 */
export const syncSchedulerJob = defineJob({
  name: "sync-scheduler",
  payload: z.object({}),
  queue: { policy: "singleton", retryLimit: 1 },
  cron: "*/10 * * * *",
  scheduleData: {},
  async handler(
    _payload,
    ctx: {
      accountsRepo: Pick<AccountsRepository, "accountsForAutoSync">;
      queue: JobSender;
      clock: Clock;
    },
  ) {
    const accounts = await ctx.accountsRepo.accountsForAutoSync(automaticBackupTiers());
    const now = ctx.clock.now();
    for (const a of accounts) {
      const usage = { percent: a.graph_usage_percent, at: a.graph_usage_at };
      if (!syncThisInterval(a.id, usage, now)) continue;
      await ctx.queue.send(
        syncAccountJob,
        { accountId: a.id, kind: "scheduled", mode: "backup" },
        { singletonKey: `sync:${a.id}:scheduled`, startAfter: spreadOffsetSeconds(a.id) },
      );
    }
  },
});
