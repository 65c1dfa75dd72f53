/**
 * The tables the library area owns: none. It is the read side of the dashboard, /backups and
 * /api/v1, and may read, never write, the tables its lists join (scripts/check-areas.ts checks
 * that it only selects from them).
 */
export const ownedTables = [] as const;
export const readsTables = [
  "posts",
  "backups",
  "backup_files",
  "post_counts",
  "backup_counts",
] as const;
