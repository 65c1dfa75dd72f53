/**
 * The tables the backups area owns: Each post's backup, its files in Drive, the Drive folders, the backups' counters.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = ["backups", "backup_files", "drive_folders", "backup_counts"] as const;
/**
 * Read, never written: the posts (sync/) a backup copies, joined for the backups' totals, the
 * failed backups a retry may reset (not those beyond the plan's limit) and the stories lost;
 * the running sync runs (sync/) whose backups make the totals' progress.
 */
export const readsTables = ["posts", "sync_jobs"] as const;
