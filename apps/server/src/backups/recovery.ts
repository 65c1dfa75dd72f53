import type { DriveClient, DriveFile } from "../providers/google/drive.client.ts";
import type { DriveCall } from "./drive-caller.ts";
import type { Ledger } from "./ledger.ts";
import { ITEM_KEY, POST_KEY } from "./plan.ts";
import type { BackupFileRow } from "./tables.ts";
import type { OpenSession } from "./upload.ts";

/**
 * The post's files already in Drive (found by appProperties), by item key; when an item has
 * several copies the oldest is kept and the others removed. One Drive call for the whole post.
 */
export async function findInDrive(
  call: DriveCall,
  drive: DriveClient,
  instagramId: string,
): Promise<Map<string, DriveFile>> {
  const found = await call((t) => drive.findByAppProperty(t, POST_KEY, instagramId));
  const out = new Map<string, DriveFile>();
  for (const f of found) {
    const key = f.appProperties[ITEM_KEY];
    if (!key) continue;
    if (out.has(key)) await call((t) => drive.remove(t, f.id));
    else out.set(key, f);
  }
  return out;
}

/**
 * Where the resumable session an earlier attempt recorded stands: finished (its file), open
 * (resume from Drive's Range), or gone (forgotten; the item starts over).
 */
export async function recordedSession(
  call: DriveCall,
  drive: DriveClient,
  ledger: Ledger,
  row: BackupFileRow,
): Promise<{ done: DriveFile } | { open: OpenSession } | null> {
  const uri = ledger.openSession(row);
  if (!uri) return null;
  const total = row.upload_total === null ? null : Number(row.upload_total);
  const st = await call((t) => drive.status(t, uri, total));
  if (st === "gone") return null;
  if (st.done) return { done: st.file };
  return { open: { uri, total, received: st.received } };
}

/**
 * Whether files of this post may already be in Drive without a record of them, so the backup
 * must look before uploading: a retry (an earlier attempt may have created a file and died
 * before recording it), a post whose earlier backup record was lost, or a folder an earlier
 * connection filled (found in Drive, or older than this connection of the account) for posts
 * from before then. A first backup of a post never looks.
 */
export function mayAlreadyBeInDrive(a: {
  attempts: number;
  backupStartedBefore: Date | null;
  postedAt: Date;
  accountConnectedAt: Date;
  folder: { recordedAt: Date; adopted: boolean };
}): boolean {
  if (a.attempts > 1 || a.backupStartedBefore !== null) return true;
  if (a.folder.adopted) return a.postedAt < a.folder.recordedAt;
  return a.folder.recordedAt < a.accountConnectedAt && a.postedAt < a.accountConnectedAt;
}
