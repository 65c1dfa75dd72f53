import type { DestinationSession, FileSpec, ItemResult, Ledger } from "../destinations/index.ts";
import type { PostRow } from "../sync/tables.ts";
import { type BackupItem, sidecar } from "./naming.ts";

/** A file of the post already in the destination, for the sidecar's list. */
export interface PlacedFile {
  kind: BackupItem["kind"];
  name: string;
  fileId: string;
}

/** A file of the post that Instagram does not give out (no media URL). */
export interface WithheldItem {
  kind: BackupItem["kind"];
  name: string;
}

/** Writes the post's `…_meta.json` (everything Instagram said about it, and its files). */
export async function writeSidecar(a: {
  destination: DestinationSession;
  ledger: Ledger;
  item: BackupItem;
  spec: FileSpec;
  post: PostRow;
  username: string;
  files: PlacedFile[];
  withheld: WithheldItem[];
  /** What other areas add (the archive: metrics, instagram_status). */
  extra?: Record<string, unknown>;
}): Promise<ItemResult> {
  const body = sidecarBody(a.post, a.username, a.files, a.withheld, a.extra);
  const file = await a.destination.putBytes(a.spec, body);
  return a.ledger.record(a.item, file, false);
}

/** The sidecar's bytes: the post, its files, and what other areas add. */
export function sidecarBody(
  post: PostRow,
  username: string,
  files: PlacedFile[],
  withheld: WithheldItem[],
  extra: Record<string, unknown> = {},
): Buffer {
  const cover = files.find((f) => f.kind === "cover");
  const content = sidecar(
    post,
    username,
    files.filter((f) => f.kind === "media").map((f) => ({ name: f.name, id: f.fileId })),
    cover ? { name: cover.name, id: cover.fileId } : null,
    withheld.map((w) => w.name),
  );
  const { backed_up_by, ...rest } = content;
  return Buffer.from(JSON.stringify({ ...rest, ...extra, backed_up_by }, null, 2));
}
