/**
 * The tables the mail area owns: the outbox (one row per message, sent exactly once) and each
 * recipient's choices per category (unsubscribe, Settings → Notifications).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = ["mail_outbox", "mail_preferences"] as const;
