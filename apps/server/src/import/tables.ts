import type { DestinationKind } from "@keepsake/contracts";
import type { Generated, Selectable } from "kysely";
import type { Timestamp } from "../db/columns.ts";

/**
 * The tables the import area owns: each item of an imported Instagram export and each of its
 * media files, with their Drive ids and resumable sessions (migrations 1080, 1140).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "import_items",
  "import_files",
] as const satisfies readonly (keyof ImportTables)[];
/** Read, never written: the account (connections/) whose destination a new item takes. */
export const readsTables = ["instagram_accounts"] as const;

export interface ImportTables {
  import_items: ImportItemsTable;
  import_files: ImportFilesTable;
}

export type ImportItemKind = "post" | "reel" | "story" | "archived_post";
export type ImportItemStatus = "pending" | "completed" | "known" | "over_limit";

/** Tables of the import area (migration 1080). */
export interface ImportItemsTable {
  id: Generated<string>;
  user_id: string;
  account_id: string;
  item_key: string;
  kind: ImportItemKind;
  taken_at: Timestamp;
  caption: string | null;
  status: ImportItemStatus;
  sidecar_file_id: string | null;
  /** Where its files go (migration 1200): its account's destination when first imported. */
  destination: Generated<DestinationKind>;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: Timestamp | null;
}

export interface ImportFilesTable {
  item_id: string;
  file_key: string;
  position: number;
  uri: string;
  name: string;
  media_type: "IMAGE" | "VIDEO";
  drive_file_id: string | null;
  size_bytes: number | null;
  md5: string | null;
  /** The file's Drive link (migration 1140). */
  web_url: string | null;
  upload_session_uri: string | null;
  upload_total: number | null;
  /**
   * The account of the item's destination its file id and session are in (migration 1220: the
   * Google sub, or the connection's external_id; '' unknown, taken as the connected one's).
   */
  owner: Generated<string>;
  started_at: Timestamp | null;
  lease_until: Timestamp | null;
  updated_at: Timestamp;
}

export type ImportItemRow = Selectable<ImportItemsTable>;
export type ImportFileRow = Selectable<ImportFilesTable>;
