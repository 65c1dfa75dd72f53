import { createHash } from "node:crypto";
import type { PostRow } from "../db/sync-tables.ts";
import type { DriveClient, DriveFileMetadata } from "../providers/google/drive.client.ts";
import type { DriveCall } from "./drive-caller.ts";
import type { ItemResult, Ledger } from "./ledger.ts";
import { type BackupItem, sidecar } from "./naming.ts";
import { keepIfIntact } from "./upload.ts";

/** A file of the post already in Drive, for the sidecar's list. */
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
  call: DriveCall;
  drive: DriveClient;
  ledger: Ledger;
  item: BackupItem;
  meta: DriveFileMetadata;
  post: PostRow;
  username: string;
  files: PlacedFile[];
  withheld: WithheldItem[];
}): Promise<ItemResult> {
  const cover = a.files.find((f) => f.kind === "cover");
  const body = Buffer.from(
    JSON.stringify(
      sidecar(
        a.post,
        a.username,
        a.files.filter((f) => f.kind === "media").map((f) => ({ name: f.name, id: f.fileId })),
        cover ? { name: cover.name, id: cover.fileId } : null,
        a.withheld.map((w) => w.name),
      ),
      null,
      2,
    ),
  );
  const file = await a.call((t) => a.drive.multipart(t, a.meta, body, "application/json"));
  await keepIfIntact(a.call, a.drive, file, createHash("md5").update(body).digest("hex"));
  return a.ledger.record(a.item, file, false);
}
