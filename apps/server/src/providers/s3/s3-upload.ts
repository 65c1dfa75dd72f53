import { createHash } from "node:crypto";
import { byteSlices } from "../byte-slices.ts";
import { ProviderError } from "../provider-error.ts";
import {
  MAX_PARTS,
  MIN_PART,
  multipartEtag,
  type S3DestinationClient,
  type S3Write,
} from "./s3.client.ts";
import { givePart, takePart } from "./s3-bodies.ts";

/** The calls an upload makes: the client's own, or the same through a destination's caller. */
export type S3UploadClient = Pick<
  S3DestinationClient,
  | "head"
  | "put"
  | "createMultipart"
  | "uploadPart"
  | "uploadPartStream"
  | "listParts"
  | "completeMultipart"
  | "abortMultipart"
>;

/**
 * `If-None-Match: *` refused the write: an object is already at the key. `sent` is the ETag and
 * size the object written would have had, to compare with what is there (HEAD).
 */
export class S3KeyTakenError extends ProviderError {
  readonly sent: { etag: string; size: number };
  constructor(key: string, sent: { etag: string; size: number }) {
    super("s3", "unknown", `An object already exists at ${key}`, { status: 412, code: "exists" });
    this.sent = sent;
  }
}

/** A multipart upload to record (the ledger): its id and its part size, the same for every part. */
export interface S3MultipartState {
  uploadId: string;
  partBytes: number;
}

/**
 * 8 MiB parts by default: a 300 MB video is 38 parts. Piped parts hold nothing; a part read
 * whole (media of unknown length, a resumed upload) holds one buffer of this size. A multipart
 * upload keeps the part size it was opened with (the ref records it), so a resume or a
 * completed upload's ETag check never depends on this default.
 */
export const S3_PART = 8 * 1024 * 1024;
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
  /** Told a new multipart upload before its first part is sent: record it. */
  onSession?: (state: S3MultipartState) => Promise<void> | void;
  /** Runs before each request that sends bytes (a lost claim throws there). */
  beforePart?: () => void;
  /** Tries of a cut part or completion here (1 when the client's calls retry themselves). */
  recoveries?: number;
  /**
   * The upload is gone (the recorded `session` on resume, or NoSuchUpload while sending: aborted,
   * expired): this is thrown instead of starting a new upload or failing as not_found.
   */
  sessionGone?: () => Error;
}

/** The media ended before the length it announced. */
const cutShort = () =>
  new ProviderError("instagram", "network", "The download from the Instagram CDN was cut short");

/** A write refused for a key already taken (and not to be overwritten) says what was sent. */
const taken = (p: S3Upload, err: unknown, sent: () => { etag: string; size: number }) =>
  err instanceof ProviderError && err.code === "exists" && !p.write.overwrite
    ? new S3KeyTakenError(p.key, sent())
    : err;

const noUpload = (err: unknown) => err instanceof ProviderError && err.code === "NoSuchUpload";
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

/**
 * Reads the source in parts of `size` bytes (the last shorter), each copied once into a part
 * buffer (`takePart`) and yielded as one view of it; the caller gives it back once sent.
 */
async function* partsOf(source: AsyncIterable<Uint8Array>, size: number) {
  let held: Buffer | null = null;
  let heldBytes = 0;
  for await (const piece of source) {
    let rest = piece;
    while (rest.length > 0) {
      held ??= takePart(size);
      const take = Math.min(size - heldBytes, rest.length);
      held.set(rest.subarray(0, take), heldBytes);
      heldBytes += take;
      rest = rest.subarray(take);
      if (heldBytes === size) {
        yield [held as Uint8Array];
        held = null;
        heldBytes = 0;
      }
    }
  }
  if (held && heldBytes > 0) yield [held.subarray(0, heldBytes) as Uint8Array];
}

const lengthOf = (parts: readonly Uint8Array[]) => parts.reduce((n, x) => n + x.length, 0);
const md5 = (parts: readonly Uint8Array[]) => {
  const h = createHash("md5");
  for (const p of parts) h.update(p);
  return h.digest();
};

/**
 * Writes media to S3 without ever overwriting (`If-None-Match: *`, unless `write.overwrite`):
 * one PutObject when it fits one part, else a multipart upload of equal parts recorded before
 * its first part. A new upload of known length pipes each part (`pipedMultipart`). Otherwise
 * every part is read whole, goes with Content-MD5 and its ETag is checked; on resume (a
 * recorded upload) the parts S3 lists with the md5 of our bytes are kept and only the others
 * sent, so a corrupted part (ETag not our md5: transient `etag_mismatch`) is sent again the next
 * time. A cut part is sent again at once; a completion whose answer was lost (broken off, or
 * retried into NoSuchUpload) is found by HEAD. A key already taken throws `S3KeyTakenError`.
 */
export async function uploadToS3(client: S3UploadClient, p: S3Upload) {
  const recoveries = p.recoveries ?? RECOVERIES;
  const size = p.session?.partBytes ?? partSize(p.total, p.partBytes);
  if (!p.session && p.total !== null && p.total > size)
    return pipedMultipart(client, p, p.total, size);
  const parts = partsOf(p.source, size);
  const first = await parts.next();
  const firstPart = first.done ? [] : first.value;
  // A length known to need parts: no second part is read ahead (one part held, not two).
  const needsParts = !first.done && p.total !== null && p.total > size;
  const second = first.done || needsParts ? null : await parts.next();
  if (first.done || second?.done) {
    if (p.session) await client.abortMultipart(p.key, p.session.uploadId).catch(() => {});
    const length = lengthOf(firstPart);
    p.beforePart?.();
    try {
      const { etag } = await client.put(p.key, firstPart, p.write);
      return { etag, size: length };
    } catch (err) {
      throw taken(p, err, () => ({ etag: md5(firstPart).toString("hex"), size: length }));
    } finally {
      givePart(firstPart);
    }
  }

  let state = p.session ?? null;
  const listed = state ? await client.listParts(p.key, state.uploadId) : null;
  if (state && !listed && p.sessionGone) throw p.sessionGone();
  if (!state || !listed) {
    state = { uploadId: await client.createMultipart(p.key, p.write), partBytes: size };
    await p.onSession?.(state);
  }
  const held = new Map((listed ?? []).map((x) => [x.partNumber, x]));
  const uploadId = state.uploadId;

  const done: { etag: string; md5: Buffer }[] = [];
  let total = 0;
  async function send(body: Uint8Array[]) {
    const number = done.length + 1;
    const digest = md5(body);
    const length = lengthOf(body);
    total += length;
    const there = held.get(number);
    if (there && there.size === length && there.etag === digest.toString("hex")) {
      done.push({ etag: there.etag, md5: digest });
      return;
    }
    for (let attempt = 0; ; attempt++) {
      p.beforePart?.();
      try {
        done.push(await client.uploadPart(p.key, uploadId, number, body, digest));
        return;
      } catch (err) {
        if (noUpload(err) && p.sessionGone) throw p.sessionGone();
        if (!isCut(err) || attempt + 1 >= recoveries) throw err;
      }
    }
  }
  const sent = async (body: Uint8Array[]) => {
    await send(body);
    givePart(body);
  };
  await sent(firstPart);
  if (second && !second.done) await sent(second.value);
  for await (const body of parts) await sent(body);
  // Never completed shorter than the media said (a resumed upload reads it again).
  if (p.total !== null && total !== p.total) throw cutShort();
  return complete(client, p, uploadId, done, total, recoveries);
}

/**
 * Completes a multipart upload of the parts `done`: a completion whose answer was lost (broken
 * off, or retried into NoSuchUpload) is found by HEAD; a key taken meanwhile aborts it.
 */
async function complete(
  client: S3UploadClient,
  p: S3Upload,
  uploadId: string,
  done: { etag: string; md5: Buffer }[],
  total: number,
  recoveries: number,
) {
  const expected = multipartEtag(done.map((d) => d.md5));
  for (let attempt = 0; ; attempt++) {
    try {
      const { etag } = await client.completeMultipart(p.key, uploadId, done, p.write.overwrite);
      return { etag, size: total };
    } catch (err) {
      if (err instanceof ProviderError && err.code === "exists") {
        await client.abortMultipart(p.key, uploadId).catch(() => {});
        throw taken(p, err, () => ({ etag: expected, size: total }));
      }
      if (noUpload(err) || isCut(err)) {
        const there = await client.head(p.key);
        if (there?.etag === expected) return { etag: expected, size: total };
        if (noUpload(err) && p.sessionGone) throw p.sessionGone();
      }
      if (!isCut(err) || attempt + 1 >= recoveries) throw err;
    }
  }
}

/**
 * A new multipart upload of known length, each part piped from the source into its request as
 * it arrives (`uploadPartStream`: nothing held, its md5 computed on the way and checked against
 * the part's ETag). Recorded before its first part. The next part starts once a part's last byte
 * is read, while S3 stores that one and answers (at most two in flight), so the download never
 * waits on an answer. A part that fails is not sent again from here (its bytes are gone): the
 * error is thrown with the upload recorded, and the caller resumes it (`session`), reading the
 * media again and sending only what S3 does not hold.
 */
async function pipedMultipart(client: S3UploadClient, p: S3Upload, total: number, size: number) {
  const state = { uploadId: await client.createMultipart(p.key, p.write), partBytes: size };
  await p.onSession?.(state);
  const slices = byteSlices(p.source, { short: cutShort });
  const done: { etag: string; md5: Buffer }[] = [];
  /** The part before this one, sent and not yet answered. */
  let answer: Promise<unknown> | null = null;
  for (let offset = 0, number = 1; offset < total; number++) {
    const length = Math.min(size, total - offset);
    p.beforePart?.();
    let read = () => {};
    const allRead = new Promise<void>((resolve) => {
      read = resolve;
    });
    async function* bytes() {
      yield* slices.take(length);
      read();
    }
    const sent = client.uploadPartStream(p.key, state.uploadId, number, bytes(), length).then(
      (r) => {
        done[number - 1] = r;
      },
      (err) => {
        if (noUpload(err) && p.sessionGone) throw p.sessionGone();
        throw err;
      },
    );
    // Awaited below; until then a failure must not count as unhandled.
    sent.catch(() => {});
    // This part's bytes all read (or it failed), and the one before answered: the next starts.
    await Promise.race([allRead, sent]);
    await answer;
    answer = sent;
    offset += length;
  }
  await answer;
  if (await slices.next())
    throw new ProviderError("instagram", "transient", "The media is longer than announced");
  return complete(client, p, state.uploadId, done, total, p.recoveries ?? RECOVERIES);
}
