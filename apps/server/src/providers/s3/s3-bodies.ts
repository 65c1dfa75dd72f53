import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { ProviderError } from "../provider-error.ts";

/** What S3 requests send and answer: bodies, md5s and ETags. */

export const md5 = (parts: readonly Uint8Array[]) => {
  const h = createHash("md5");
  for (const p of parts) h.update(p);
  return h.digest();
};
/**
 * Pieces as a request's body without copying them into one buffer: a stream of known length
 * (which the SDK signs as UNSIGNED-PAYLOAD rather than hashing it again: Content-MD5 or the
 * ETag carries its integrity).
 */
export const bodyOf = (parts: readonly Uint8Array[]) => ({
  Body: Readable.from(parts, { objectMode: false }),
  ContentLength: parts.reduce((n, p) => n + p.length, 0),
});
/**
 * A request body that yields `source` as it arrives, its md5 computed on the way. Once the
 * request is over, `digest()` is the md5 of what was sent. A source that fails (a download cut
 * short) aborts the request (`signal`) before its end, and `failure` rethrows the source's
 * error in place of the request's. A source that ends before `length` bytes (one already
 * read by an earlier try of the call) fails as `network` the same way: a request is never sent
 * short.
 */
export function hashedBody(source: AsyncIterable<Uint8Array>, length: number) {
  const hash = createHash("md5");
  const stop = new AbortController();
  let broke: { err: unknown } | null = null;
  async function* hashed() {
    let sent = 0;
    try {
      for await (const piece of source) {
        hash.update(piece);
        sent += piece.length;
        yield piece;
      }
      if (sent < length)
        throw new ProviderError("s3", "network", "The bytes to send ended before their length");
    } catch (err) {
      broke = { err };
      stop.abort();
      throw err;
    }
  }
  const body = Readable.from(hashed(), { objectMode: false });
  // Its failure is thrown by `failure`, not left to crash the process as unhandled.
  body.on("error", () => {});
  return {
    body,
    signal: stop.signal,
    failure: (err: unknown): never => {
      throw broke ? (broke as { err: unknown }).err : err;
    },
    digest: () => hash.digest(),
  };
}

export const unquote = (etag: string | undefined) => (etag ?? "").replace(/"/g, "").toLowerCase();
/** The stored bytes differ from what was sent (the ETag is not their md5). */
export const etagMismatch = (what: string) =>
  new ProviderError(
    "s3",
    "transient",
    `The S3 storage holds other bytes than were sent (${what})`,
    {
      code: "etag_mismatch",
    },
  );

/** The multipart ETag S3 computes: md5 of the parts' md5s, then `-N`. */
export function multipartEtag(partMd5s: readonly Buffer[]): string {
  return `${createHash("md5").update(Buffer.concat(partMd5s)).digest("hex")}-${partMd5s.length}`;
}

/** Free part buffers kept for reuse: as many as a worker's uploads at once (three by default). */
const FREE_KEPT = 3;
const free: Buffer[] = [];
const ours = new WeakSet<ArrayBufferLike>();

/**
 * A buffer of `size` bytes for one part, reused when one is free: a part is copied into it once
 * as it arrives (the download's pieces are then let go young, rather than held until the part
 * is sent), and given back (`givePart`) once its request is over.
 */
export function takePart(size: number): Buffer {
  const i = free.findIndex((b) => b.length === size);
  if (i >= 0) return free.splice(i, 1)[0] as Buffer;
  const b = Buffer.allocUnsafeSlow(size);
  ours.add(b.buffer);
  return b;
}

/** A part's bytes, sent: its buffer serves the next part (only buffers `takePart` made). */
export function givePart(part: readonly Uint8Array[]) {
  const view = part[0];
  if (part.length !== 1 || !view || !ours.has(view.buffer)) return;
  if (free.some((b) => b.buffer === view.buffer)) return;
  if (free.length >= FREE_KEPT) free.shift();
  free.push(Buffer.from(view.buffer));
}
