/**
 * `bench:chaos`'s verdict, read from the chosen destination's listing: which expected items are
 * there, which are there more than once, and whose content hash differs from the one Keepsake
 * recorded when it verified the upload.
 *
 * Google Drive tags each file with its item (`keepsakeMediaId`). Dropbox, OneDrive and S3 hold
 * no such tag: a file is matched to its item by its name, which the naming grammar derives from
 * the post alone (`backupItems` over the posts the sync listed), never from Keepsake's ledger. A
 * file whose name is no item's (a conflict copy such as `… (1).jpg`, an object Keepsake never
 * recorded) counts as a duplicate.
 */
import { backupItems } from "../src/backups/naming.ts";
import type { SandboxedApp } from "../test/support/sandbox.ts";
import { type BenchDestination, type ListedFile, listDestination } from "./destination.ts";

export interface ChaosVerdict {
  files: ListedFile[];
  have: Set<string>;
  missing: string[];
  duplicates: number;
  mismatches: number;
  /** Files whose listed hash was compared with a recorded one. */
  checked: number;
}

const unquoted = (h: string | null) => (h ? h.replace(/^"|"$/g, "") : null);

/** Item key of each file name Keepsake would write for the posts the sync listed. */
async function itemsByName(t: SandboxedApp): Promise<Map<string, string>> {
  const posts = await t.ctx.db.selectFrom("posts").selectAll().execute();
  const byName = new Map<string, string>();
  for (const p of posts) for (const item of backupItems(p)) byName.set(item.name, item.key);
  return byName;
}

export async function chaosVerdict(
  t: SandboxedApp,
  kind: BenchDestination,
  expected: Set<string>,
): Promise<ChaosVerdict> {
  const files = await listDestination(t.sandbox, kind);
  const byName = kind === "google_drive" ? null : await itemsByName(t);
  const counts = new Map<string, number>();
  for (const f of files) {
    const k = (byName ? byName.get(f.name) : f.itemKey) ?? `name:${f.name}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const have = new Set(counts.keys());
  const missing = [...expected].filter((k) => !have.has(k));
  const duplicates = [...counts.entries()]
    .map(([k, n]) => (byName && k.startsWith("name:") ? n : n - 1))
    .reduce((a, b) => a + b, 0);

  // What Keepsake recorded for each file it verified in this destination (its id and hash).
  const recorded = await t.ctx.db
    .selectFrom("backup_files")
    .select(["drive_file_id", "name", "md5"])
    .where("destination", "=", kind)
    .where("drive_file_id", "is not", null)
    .execute();
  const hashOf = new Map<string, string | null>();
  for (const r of recorded) {
    // Drive files are known by id; the others by name (Dropbox's listing carries no id).
    hashOf.set(kind === "google_drive" ? (r.drive_file_id as string) : r.name, unquoted(r.md5));
  }
  let checked = 0;
  const mismatches = files.filter((f) => {
    const want = hashOf.get(kind === "google_drive" ? f.id : f.name);
    const got = unquoted(f.hash);
    if (!want || !got) return false;
    checked++;
    return want !== got;
  }).length;
  return { files, have, missing, duplicates, mismatches, checked };
}
