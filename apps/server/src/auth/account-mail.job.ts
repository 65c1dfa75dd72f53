import { z } from "zod";
import { defineJob } from "../jobs/job.ts";

/**
 * The mails an anonymous request to the auth area causes, sent after the answer (issue 35): a
 * forgot-password request and a registration do the same work whether or not an account has the
 * address — they record the request and queue this job — and the job decides what to mail:
 * a reset link to an account (nothing otherwise); a verification link to a new account, or a
 * note to the owner of an address that was already taken. `request` names the request, so a
 * retried job records its mail once.
 */
export const accountMailJob = defineJob({
  name: "account-mail",
  payload: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("password-reset"), email: z.string(), request: z.uuid() }),
    z.object({
      kind: z.literal("registration"),
      email: z.string(),
      request: z.uuid(),
      /** Whether this registration created the account (false: the address was taken). */
      created: z.boolean(),
    }),
  ]),
  queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 },
  concurrency: 2,
  pollingIntervalSeconds: 1,
  async handler(
    payload,
    ctx: {
      accountMail: {
        deliverPasswordReset(email: string, request: string): Promise<void>;
        deliverRegistration(email: string, request: string, created: boolean): Promise<void>;
      };
    },
  ) {
    if (payload.kind === "password-reset")
      await ctx.accountMail.deliverPasswordReset(payload.email, payload.request);
    else await ctx.accountMail.deliverRegistration(payload.email, payload.request, payload.created);
  },
});
