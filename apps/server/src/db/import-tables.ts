import type { Generated, Selectable } from "kysely";
import type { Timestamp } from "./columns.ts";

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
  size_bytes: string | number | null;
  md5: string | null;
  /** The file's Drive link (migration 1140). */
  web_url: string | null;
  upload_session_uri: string | null;
  upload_total: string | number | null;
  started_at: Timestamp | null;
  lease_until: Timestamp | null;
  updated_at: Timestamp;
}

export interface ImportTables {
  import_items: ImportItemsTable;
  import_files: ImportFilesTable;
}

export type ImportItemRow = Selectable<ImportItemsTable>;
export type ImportFileRow = Selectable<ImportFilesTable>;
