import { z } from "zod";
import { defineJob } from "../jobs/job.ts";
import type { CommentsService } from "./comments.service.ts";

export const commentsSingletonKey = (accountId: string) => `comments:${accountId}`;

/**
 * Reads the comments of an account's due posts (comments/comments.service.ts). `stately` with
 * the account's key: at most one queued and one running per account. A crash re-reads the
 * posts not yet finished; their file in Drive is found by its appProperties, never made twice.
 */
export const refreshCommentsJob = defineJob({
  name: "refresh-comments",
  payload: z.object({ accountId: z.uuid() }),
  queue: {
    policy: "stately",
    retryLimit: 5,
    retryDelay: 30,
    retryBackoff: true,
    retryDelayMax: 3600,
    expireInSeconds: 3600,
  },
  concurrency: 2,
  async handler({ accountId }, ctx: { comments: Pick<CommentsService, "refreshAccount"> }) {
    await ctx.comments.refreshAccount(accountId);
  },
});
