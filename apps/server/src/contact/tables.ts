import type { Generated } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "../db/columns.ts";

/**
 * The tables the contact area owns: Messages sent through the contact form and the admins'
 * replies (migrations 0400, 1003).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "contact_messages",
  "contact_replies",
] as const satisfies readonly (keyof ContactTables)[];

export interface ContactTables {
  contact_messages: ContactMessagesTable;
  contact_replies: ContactRepliesTable;
}

export interface ContactMessagesTable {
  id: Generated<string>;
  name: string;
  email: string;
  subject: string;
  message: string;
  ip: string;
  created_at: GeneratedTimestamp;
  handled_at: Timestamp | null;
  handled_by: string | null;
}

export interface ContactRepliesTable {
  id: Generated<string>;
  message_id: string;
  body: string;
  admin_id: string | null;
  created_at: Timestamp;
}
