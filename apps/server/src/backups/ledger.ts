import type { Clock } from "../lib/clock.ts";
import type { DriveFile } from "../providers/google/drive.client.ts";
import type { BackupsRepository } from "./backups.repository.ts";
import type { BackupItem } from "./naming.ts";
import type { BackupFileRow } from "./tables.ts";

/** One item in Drive, as the backup records it. */
export interface ItemResult {
  fileId: string;
  size: number;
  md5: string | null;
  webUrl: string | null;
  /** Found in Drive by its appProperties rather than uploaded or resumed by this attempt. */
  found: boolean;
}

/** Seals resumable session URIs for storage (anyone holding one can write to the upload). */
export interface SessionSeal {
  seal(uri: string): string;
  open(sealed: string): string;
}

/**
 * The backup_files rows of one backup: what each item left in Drive, recorded the moment it
 * exists — an open resumable session before its first byte, a file id as soon as Drive answers.
 */
export function createLedger(deps: {
  repo: Pick<BackupsRepository, "saveBackupFile">;
  clock: Clock;
  sessions: SessionSeal;
  backupId: string;
}) {
  const { repo, clock, sessions, backupId } = deps;
  const save = (item: BackupItem, fields: Partial<BackupFileRow>) =>
    repo.saveBackupFile(
      { backup_id: backupId, item_key: item.key, name: item.name, ...fields },
      clock.now(),
    );
  return {
    /** An open session, sealed: a worker that dies leaves it for the next attempt to resume. */
    rememberSession: (item: BackupItem, uri: string, total: number | null) =>
      save(item, { upload_session_uri: sessions.seal(uri), upload_total: total }),

    /** The item's session finished, vanished, or must start again. */
    forgetSession: (item: BackupItem) =>
      save(item, { upload_session_uri: null, upload_total: null }),

    openSession: (row: BackupFileRow) =>
      row.upload_session_uri ? sessions.open(row.upload_session_uri) : null,

    async record(item: BackupItem, f: DriveFile, found: boolean): Promise<ItemResult> {
      await save(item, {
        drive_file_id: f.id,
        size_bytes: f.size ?? 0,
        md5: f.md5Checksum,
        web_url: f.webViewLink,
        upload_session_uri: null,
        upload_total: null,
      });
      return { fileId: f.id, size: f.size ?? 0, md5: f.md5Checksum, webUrl: f.webViewLink, found };
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;

/** An item an earlier attempt finished and recorded. */
export const recordedResult = (row: BackupFileRow): ItemResult => ({
  fileId: row.drive_file_id as string,
  size: Number(row.size_bytes ?? 0),
  md5: row.md5,
  webUrl: row.web_url,
  found: false,
});
