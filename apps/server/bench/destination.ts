/**
 * BENCH_DESTINATION for `bench:backup` and `bench:chaos`: google_drive (default) | dropbox |
 * onedrive | s3. The bench user connects that destination as a person does (the consent screens
 * for Dropbox and OneDrive, the settings form for S3), its Instagram accounts are pointed at it
 * (`PUT /api/oauth/instagram/accounts/:id/destination`), and the figures are read from that
 * destination's sandbox calls and file listing.
 */
import {
  DEMO_DROPBOX,
  DEMO_GOOGLE,
  DEMO_ONEDRIVE,
  SANDBOX_CREDENTIALS,
  type Sandbox,
} from "@keepsake/sandbox";

export const DESTINATION_KINDS = ["google_drive", "dropbox", "onedrive", "s3"] as const;
export type BenchDestination = (typeof DESTINATION_KINDS)[number];

export const LABELS: Record<BenchDestination, string> = {
  google_drive: "Google Drive",
  dropbox: "Dropbox",
  onedrive: "OneDrive",
  s3: "S3",
};

/** The sandbox's call-counter prefix of each destination's requests. */
export const CALL_PREFIX: Record<BenchDestination, string> = {
  google_drive: "drive.",
  dropbox: "dropbox.",
  onedrive: "onedrive.",
  s3: "s3.",
};

/** BENCH_DESTINATION, checked (exits 2 on an unknown value). */
export function benchDestination(): BenchDestination {
  const v = process.env.BENCH_DESTINATION ?? "google_drive";
  if (!(DESTINATION_KINDS as readonly string[]).includes(v)) {
    console.error(`BENCH_DESTINATION must be one of ${DESTINATION_KINDS.join(", ")}; got ${v}`);
    process.exit(2);
  }
  return v as BenchDestination;
}

export { connectDestination } from "../test/support/destination-connect.ts";

/** A file Keepsake wrote, as the destination lists it. */
export interface ListedFile {
  id: string;
  name: string;
  /** The destination's hash (Drive md5, Dropbox content_hash, OneDrive quickXorHash, S3 ETag). */
  hash: string | null;
  /** Drive's `keepsakeMediaId` property (the other destinations hold no such tag). */
  itemKey: string | null;
}

async function control<T>(sandbox: Sandbox, path: string): Promise<T> {
  const res = await fetch(`${sandbox.url}/_control/${path}`);
  if (!res.ok) throw new Error(`control ${path}: ${res.status}`);
  return (await res.json()) as T;
}

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** Every file (not folder) in the sandbox's account of `kind` that the bench users write to. */
export async function listDestination(
  sandbox: Sandbox,
  kind: BenchDestination,
): Promise<ListedFile[]> {
  if (kind === "google_drive") {
    type Drive = {
      files: {
        id: string;
        name: string;
        isFolder: boolean;
        trashed: boolean;
        md5Checksum?: string;
        appProperties: Record<string, string>;
      }[];
    };
    const { files } = await control<Drive>(
      sandbox,
      `drive/files?email=${encodeURIComponent(DEMO_GOOGLE.jordan.email)}`,
    );
    return files
      .filter((f) => !f.isFolder && !f.trashed)
      .map((f) => ({
        id: f.id,
        name: f.name,
        hash: f.md5Checksum ?? null,
        itemKey: f.appProperties.keepsakeMediaId ?? null,
      }));
  }
  if (kind === "dropbox") {
    type Listing = {
      accounts: { email: string; files: { path: string; content_hash: string }[] }[];
    };
    const l = await control<Listing>(sandbox, "dropbox/files");
    const files = l.accounts.find((a) => a.email === DEMO_DROPBOX.jordan.email)?.files ?? [];
    return files.map((f) => ({
      id: f.path,
      name: baseName(f.path),
      hash: f.content_hash,
      itemKey: null,
    }));
  }
  if (kind === "onedrive") {
    type Listing = {
      users: { email: string; files: { id: string; path: string; quick_xor_hash: string }[] }[];
    };
    const l = await control<Listing>(sandbox, "onedrive/files");
    const files = l.users.find((u) => u.email === DEMO_ONEDRIVE.jordan.email)?.files ?? [];
    return files.map((f) => ({
      id: f.id,
      name: baseName(f.path),
      hash: f.quick_xor_hash,
      itemKey: null,
    }));
  }
  type Listing = { objects: { bucket: string; key: string; etag: string }[] };
  const l = await control<Listing>(sandbox, `s3/objects?bucket=${SANDBOX_CREDENTIALS.s3.bucket}`);
  return l.objects
    .filter((o) => !baseName(o.key).startsWith(".keepsake-probe-"))
    .map((o) => ({ id: o.key, name: baseName(o.key), hash: o.etag, itemKey: null }));
}
