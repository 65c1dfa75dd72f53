import { z } from "zod";
import { defineJob } from "../jobs/job.ts";
import type { TokenCustody } from "./token-custody.service.ts";

/**
 * Every 6 hours: renews Instagram tokens that are ≥ 24 h old and end within 7 days, and marks
 * accounts whose token has ended or is refused as needing reconnection. Idempotent: a token
 * renewed once is no longer due. Transient provider failures wait for the next run.
 */
export const refreshInstagramTokensJob = defineJob({
  name: "refresh-instagram-tokens",
  payload: z.object({}),
  queue: { policy: "singleton", retryLimit: 2 },
  cron: "17 */6 * * *",
  scheduleData: {},
  async handler(
    _payload,
    ctx: { connections: { tokens: Pick<TokenCustody, "refreshExpiringTokens"> } },
  ) {
    await ctx.connections.tokens.refreshExpiringTokens();
  },
});
