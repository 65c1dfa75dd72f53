/**
 * The tables the notifications area owns: one row per event a user is told of (the bell, and the
 * key its alert mail is sent under), backup failures waiting for the day's summary, and the
 * stories already reported as lost.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = [
  "notifications",
  "notification_backup_failures",
  "notification_marks",
] as const;
