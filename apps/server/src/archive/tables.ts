/**
 * The tables the archive area owns: each post's engagement readings, whether each post is still
 * on Instagram (seen and missed by walks, marked gone), and each account's walks.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = ["post_metrics", "post_presence", "archive_walks"] as const;

/**
 * The stats CSV names each post as the grid does (its id, type, caption and permalink); the
 * charts count the posts per month as the dashboard counts them.
 */
export const readsTables = ["posts"] as const;
