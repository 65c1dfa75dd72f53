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
