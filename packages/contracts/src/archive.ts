import { z } from "zod";

export { archiveMessages } from "./archive-messages.ts";

/** The archive (issue 30): each post's engagement over time and the account's history. */

const optionalQuery = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" || v === null ? undefined : v), schema.optional());

/** Why a reading was taken: at backup, about 1, 7 and 30 days after posting, at a weekly walk. */
export const metricsReason = z.enum(["backup", "day_1", "day_7", "day_30", "walk"]);
export type MetricsReason = z.infer<typeof metricsReason>;

/**
 * The counters a reading keeps of a post, in the order the API, the sidecar and the stats CSV
 * show them: every other place derives its fields from this list.
 */
export const archiveCounters = [
  "likes",
  "comments",
  "views",
  "saves",
  "shares",
  "reposts",
] as const;
export type ArchiveCounter = (typeof archiveCounters)[number];
/** A post's counters; null: Instagram did not return it (hidden counts). */
export type ArchiveCounters = Record<ArchiveCounter, number | null>;

const counterFields = Object.fromEntries(
  archiveCounters.map((c) => [c, z.number().int().nullable()]),
) as Record<ArchiveCounter, z.ZodNullable<z.ZodNumber>>;

/** One reading of a post's counters. */
export const metricsReading = z.object({ at: z.string(), reason: metricsReason, ...counterFields });
export type MetricsReading = z.infer<typeof metricsReading>;

export const postHistoryParams = z.object({ account_id: z.string(), instagram_id: z.string() });

/** A post's readings, oldest first, and whether it is still on Instagram. */
export const postHistory = z.object({
  metrics: z.array(metricsReading),
  gone_detected_at: z.string().nullable(),
  restore_until: z.string().nullable(),
});
export type PostHistory = z.infer<typeof postHistory>;

export const archiveStatsQuery = z.object({
  account_id: optionalQuery(z.uuid({ error: "account_id must be an account id" })),
});
export type ArchiveStatsQuery = z.input<typeof archiveStatsQuery>;

/**
 * The stats CSV: `history` (the default) has one row per post per reading, `snapshot` one row
 * per post with its latest reading.
 */
export const statsCsvView = z.enum(["history", "snapshot"]);
export type StatsCsvView = z.infer<typeof statsCsvView>;
export const statsCsvQuery = archiveStatsQuery.extend({
  view: optionalQuery(
    z.enum(statsCsvView.options, { error: 'view must be "history" or "snapshot"' }),
  ),
});
export type StatsCsvQuery = z.input<typeof statsCsvQuery>;

/** Per month (UTC, `YYYY-MM`): posts published, and their latest counters summed. */
export const monthStats = z.object({
  month: z.string(),
  posts: z.number().int(),
  likes: z.number().int(),
  comments: z.number().int(),
  views: z.number().int(),
});
export type MonthStats = z.infer<typeof monthStats>;

/**
 * The charts: `posts` is every post Keepsake keeps (stories, imported ones and those beyond the
 * plan's limit included), the dashboard's `total_posts` of the same account(s) (issue 36); of
 * them `stories`, and `gone` no longer on Instagram.
 */
export const archiveStats = z.object({
  months: z.array(monthStats),
  posts: z.number().int(),
  stories: z.number().int(),
  gone: z.number().int(),
});
export type ArchiveStats = z.infer<typeof archiveStats>;
