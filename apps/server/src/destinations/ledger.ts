import type { Clock } from "../lib/clock.ts";
import type { StoredFile, UploadRecorder } from "./destination.ts";

/** One item in the destination, as Keepsake records it. */
export interface ItemResult {
  fileId: string;
  size: number;
  /** The destination's verified hash of the content (Drive: md5). */
  md5: string | null;
  webUrl: string | null;
  /** Found in the destination by its tags rather than uploaded or resumed by this attempt. */
  found: boolean;
}

/** Seals upload session references for storage (anyone holding one can write to the upload). */
export interface SessionSeal {
  seal(uri: string): string;
  open(sealed: string): string;
}

/** What the ledger writes of an item (the columns backup_files and import_files share). */
export interface LedgerFields {
  drive_file_id?: string | null;
  size_bytes?: number | null;
  md5?: string | null;
  web_url?: string | null;
  upload_session_uri?: string | null;
  upload_total?: number | null;
}

/** An item the ledger records: its key (the file's item tag) and name. */
export interface LedgerItem {
  key: string;
  name: string;
}

/**
 * Keepsake's one record of what it wrote to a destination, for a backup (backup_files) or an
 * import (import_files) alike: an open upload session before its first byte, a file id the
 * moment the destination answers. `save` writes one item's row.
 */
export function createLedger(deps: {
  save: (item: LedgerItem, fields: LedgerFields, now: Date) => Promise<unknown>;
  clock: Clock;
  sessions: SessionSeal;
}) {
  const { clock, sessions } = deps;
  const save = (item: LedgerItem, fields: LedgerFields) => deps.save(item, fields, clock.now());
  const ledger = {
    /** An open session, sealed: a worker that dies leaves it for the next attempt to resume. */
    rememberSession: (item: LedgerItem, uri: string, total: number | null) =>
      save(item, { upload_session_uri: sessions.seal(uri), upload_total: total }),

    /** The item's session finished, vanished, or must start again. */
    forgetSession: (item: LedgerItem) =>
      save(item, { upload_session_uri: null, upload_total: null }),

    /** The recorded session of a row, unsealed. */
    openSession: (row: { upload_session_uri: string | null }) =>
      row.upload_session_uri ? sessions.open(row.upload_session_uri) : null,

    /** What the destination hears of the item's upload session goes into the record. */
    recorder: (item: LedgerItem): UploadRecorder => ({
      opened: async (uri, total) => {
        await ledger.rememberSession(item, uri, total);
      },
      closed: async () => {
        await ledger.forgetSession(item);
      },
    }),

    async record(item: LedgerItem, f: StoredFile, found: boolean): Promise<ItemResult> {
      await save(item, {
        drive_file_id: f.id,
        size_bytes: f.size ?? 0,
        md5: f.hash,
        web_url: f.webUrl,
        upload_session_uri: null,
        upload_total: null,
      });
      return { fileId: f.id, size: f.size ?? 0, md5: f.hash, webUrl: f.webUrl, found };
    },
  };
  return ledger;
}

export type Ledger = ReturnType<typeof createLedger>;

/** An item an earlier attempt finished and recorded. */
export const recordedResult = (row: {
  drive_file_id: string | null;
  size_bytes: number | string | null;
  md5: string | null;
  web_url: string | null;
}): ItemResult => ({
  fileId: row.drive_file_id as string,
  size: Number(row.size_bytes ?? 0),
  md5: row.md5,
  webUrl: row.web_url,
  found: false,
});
