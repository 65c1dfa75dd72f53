import { z } from "zod";
import { backup, backupStatus, post, postMediaType, syncJob } from "./sync.ts";

/** Requests and answers of the public API (`/api/v1`) that differ from the session API's. */

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" || v === null ? undefined : v), schema.optional());

const accountId = z.uuid({ error: "account_id must be an account id" });
const cursor = z
  .string()
  .max(200)
  .describe("The `next_cursor` of the previous page; absent for the first page.");
const limit = (max: number, fallback: number) =>
  optional(z.coerce.number().int().min(1).max(max))
    .transform((v) => v ?? fallback)
    .describe(`Page size, 1 to ${max} (default ${fallback}).`);

export const v1PostsQuery = z.object({
  limit: limit(200, 50),
  cursor: optional(cursor),
  media_type: optional(postMediaType),
  search: optional(z.string().trim().max(200)).describe("Words in the caption."),
  account_id: optional(accountId),
});
export type V1PostsQuery = z.infer<typeof v1PostsQuery>;

/** Posts newest first (by timestamp, then id); `next_cursor` is null on the last page. */
export const v1PostsResponse = z.object({
  posts: z.array(post),
  next_cursor: z.string().nullable(),
});
export type V1PostsResponse = z.infer<typeof v1PostsResponse>;

export const v1BackupsQuery = z.object({
  limit: limit(200, 50),
  cursor: optional(cursor),
  status: optional(backupStatus),
  account_id: optional(accountId),
});
export type V1BackupsQuery = z.infer<typeof v1BackupsQuery>;

/** Backups newest first (by creation time, then id); `next_cursor` is null on the last page. */
export const v1BackupsResponse = z.object({
  backups: z.array(backup),
  next_cursor: z.string().nullable(),
});
export type V1BackupsResponse = z.infer<typeof v1BackupsResponse>;

export const v1SyncJobsQuery = z.object({ limit: limit(100, 10) });

export const v1SyncJobsResponse = z.object({ sync_jobs: z.array(syncJob) });

export const v1StartSyncRequest = z
  .object({ account_id: optional(accountId) })
  .default({ account_id: undefined });

export const v1StartSyncHeaders = z.object({
  "idempotency-key": z
    .string()
    .min(1)
    .max(255, { error: "Idempotency-Key must be at most 255 characters" })
    .optional()
    .describe("Repeating a request with the same key answers the first result again (24 hours)."),
});

export const v1PostIdParams = z.object({
  post_id: z.string().describe("Keepsake's post id (`instagram_post_id` of a backup)."),
});
