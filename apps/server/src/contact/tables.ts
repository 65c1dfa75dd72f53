/**
 * The tables the contact area owns: Messages sent through the contact form and the admins' replies.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = ["contact_messages", "contact_replies"] as const;
