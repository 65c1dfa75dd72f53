import { createHash } from "node:crypto";
import { ProviderError } from "../provider-error.ts";
import {
  MAX_PARTS,
  MIN_PART,
  multipartEtag,
  type S3DestinationClient,
  type S3Write,
} from "./s3.client.ts";

/** A multipart upload to record (the ledger): its id and its part size, the same for every part. */
export interface S3MultipartState {
  uploadId: string;
  partBytes: number;
}

/** 16 MiB parts by default: a 300 MB video is 19 requests, and one part is held at a time. */
export const S3_PART = 16 * 1024 * 1024;
const RECOVERIES = 3;

export interface S3Upload {
  /** Below the destination's prefix. */
  key: string;
  write: S3Write;
  /** The media from its first byte (on resume too: parts S3 holds with our md5 are not sent). */
  source: AsyncIterable<Uint8Array>;
  /** The length when known (multipart needs none; it sizes the parts to stay under 10,000). */
  total: number | null;
  partBytes?: number;
  session?: S3MultipartState | null;
  /** Told the multipart upload before its first part is sent: record it. */
  onSession?: (state: S3MultipartState) => Promise<void> | void;
}

const isCut = (err: unknown) =>
  err instanceof ProviderError &&
  (err.kind === "network" || (err.kind === "transient" && err.code !== "etag_mismatch"));

/** Equal parts (R2 needs them) of at least 5 MiB, few enough for S3's 10,000. */
export function partSize(total: number | null, wanted = S3_PART): number {
  const floor = Math.max(wanted, MIN_PART);
  if (total === null) return floor;
  const needed = Math.ceil(total / MAX_PARTS);
  return Math.max(floor, Math.ceil(needed / 1048576) * 1048576);
}

/** Reads the source in parts of `size` bytes (the last shorter), each as the pieces that made it. */
async function* partsOf(source: AsyncIterable<Uint8Array>, size: number) {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  for await (const piece of source) {
    let rest = piece;
    while (rest.length > 0) {
      const take = Math.min(size - heldBytes, rest.length);
      held.push(rest.subarray(0, take));
      heldBytes += take;
      rest = rest.subarray(take);
      if (heldBytes === size) {
        yield held;
        held = [];
        heldBytes = 0;
      }
    }
  }
  if (heldBytes > 0) yield held;
}

const md5 = (parts: readonly Uint8Array[]) => {
  const h = createHash("md5");
  for (const p of parts) h.update(p);
  return h.digest();
};

/**
 * Writes media to S3 without ever overwriting (`If-None-Match: *`, unless `write.overwrite`):
 * one PutObject when it fits one part, else a multipart upload of equal parts recorded before
 * its first part. Every part goes with Content-MD5 and its ETag is checked; on resume (a
 * recorded upload) the parts S3 lists with the md5 of our bytes are kept and only the others
 * sent, so a corrupted part (ETag not our md5: transient `etag_mismatch`) is sent again the next
 * time. A cut part is sent again at once; a completion whose answer was lost is found by HEAD.
 */
export async function uploadToS3(client: S3DestinationClient, p: S3Upload) {
  const size = p.session?.partBytes ?? partSize(p.total, p.partBytes);
  const parts = partsOf(p.source, size);
  const first = await parts.next();
  const firstPart = first.done ? [] : first.value;
  const second = first.done ? { done: true as const, value: undefined } : await parts.next();
  if (second.done) {
    if (p.session) await client.abortMultipart(p.key, p.session.uploadId).catch(() => {});
    const { etag } = await client.put(p.key, firstPart, p.write);
    return { etag, size: firstPart.reduce((n, x) => n + x.length, 0) };
  }

  let state = p.session ?? null;
  const listed = state ? await client.listParts(p.key, state.uploadId) : null;
  if (!state || !listed)
    state = { uploadId: await client.createMultipart(p.key, p.write), partBytes: size };
  await p.onSession?.(state);
  const held = new Map((listed ?? []).map((x) => [x.partNumber, x]));
  const uploadId = state.uploadId;

  const done: { etag: string; md5: Buffer }[] = [];
  let total = 0;
  async function send(body: Uint8Array[]) {
    const number = done.length + 1;
    const digest = md5(body);
    const length = body.reduce((n, x) => n + x.length, 0);
    total += length;
    const there = held.get(number);
    if (there && there.size === length && there.etag === digest.toString("hex")) {
      done.push({ etag: there.etag, md5: digest });
      return;
    }
    for (let attempt = 0; ; attempt++) {
      try {
        done.push(await client.uploadPart(p.key, uploadId, number, body));
        return;
      } catch (err) {
        if (!isCut(err) || attempt + 1 >= RECOVERIES) throw err;
      }
    }
  }
  await send(firstPart);
  await send(second.value);
  for await (const body of parts) await send(body);

  const expected = multipartEtag(done.map((d) => d.md5));
  for (let attempt = 0; ; attempt++) {
    try {
      const { etag } = await client.completeMultipart(p.key, uploadId, done, p.write.overwrite);
      return { etag, size: total };
    } catch (err) {
      if (err instanceof ProviderError && err.code === "exists") {
        await client.abortMultipart(p.key, uploadId).catch(() => {});
        throw err;
      }
      if (!isCut(err) || attempt + 1 >= RECOVERIES) throw err;
      const there = await client.head(p.key);
      if (there?.etag === expected) return { etag: expected, size: total };
    }
  }
}
