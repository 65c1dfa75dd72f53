import type { ApiKeysTables } from "../api-keys/tables.ts";
import type { ArchiveTables } from "../archive/tables.ts";
import type { AuthTables } from "../auth/tables.ts";
import type { BackupsTables } from "../backups/tables.ts";
import type { BillingTables } from "../billing/tables.ts";
import type { CommentsTables } from "../comments/tables.ts";
import type { ConnectionsTables } from "../connections/tables.ts";
import type { ContactTables } from "../contact/tables.ts";
import type { ImportTables } from "../import/tables.ts";
import type { MailTables } from "../mail/tables.ts";
import type { NotificationsTables } from "../notifications/tables.ts";
import type { StatusTables } from "../status/tables.ts";
import type { SyncTables } from "../sync/tables.ts";

/**
 * Every table, as Kysely sees it. Each area declares its tables' row types once, in its
 * `tables.ts` beside `ownedTables`; test/schema-types.test.ts checks them against the migrated
 * schema (every column, its nullability and kind; no table or column missing or extra).
 */
export interface Database
  extends AuthTables,
    ConnectionsTables,
    SyncTables,
    BackupsTables,
    BillingTables,
    ApiKeysTables,
    ContactTables,
    StatusTables,
    ImportTables,
    ArchiveTables,
    CommentsTables,
    MailTables,
    NotificationsTables {}
