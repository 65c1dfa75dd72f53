/**
 * The tables the comments area owns: each account's "Also keep comments" setting, the comments
 * kept (removed ones marked) and when each post's comments were last read.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = ["comment_settings", "post_comments", "comment_reads"] as const;
