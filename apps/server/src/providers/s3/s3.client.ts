import { createRequire } from "node:module";
import type { Readable } from "node:stream";
import type * as AwsS3 from "@aws-sdk/client-s3";
import { assertOutsideTransaction } from "../../lib/transaction-scope.ts";
import { PROVIDER_TIMEOUT_MS } from "../http.ts";
import { ProviderError } from "../provider-error.ts";
import { bodyOf, etagMismatch, hashedBody, md5, multipartEtag, unquote } from "./s3-bodies.ts";
import { s3CallCounter } from "./s3-call-counter.ts";
import { literalRefusal, publicOnlyAgents } from "./s3-endpoint.ts";

export { etagMismatch, multipartEtag };

import { s3Error } from "./s3-error.ts";

/**
 * The AWS SDK, loaded when the first S3 client is made: it holds about 30 MiB, which a worker
 * that never writes to S3 (every Drive, Dropbox or OneDrive user) should not carry.
 */
let sdkModule: typeof AwsS3 | undefined;
const aws = (): typeof AwsS3 => {
  sdkModule ??= createRequire(import.meta.url)("@aws-sdk/client-s3") as typeof AwsS3;
  return sdkModule;
};

/** An S3-compatible destination (AWS S3, Cloudflare R2, Backblaze B2, MinIO). */
export interface S3Settings {
  /** `https://s3.eu-west-1.amazonaws.com`, `https://<account>.r2.cloudflarestorage.com`… */
  endpoint: string;
  region: string;
  bucket: string;
  /** Keys start with it (`""` or e.g. `backups/`). */
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Path-style addressing (`{endpoint}/{bucket}/{key}`): what most compatible stores need. */
  forcePathStyle?: boolean;
}

export interface S3Object {
  /** Without the prefix. */
  key: string;
  size: number;
  etag: string;
  lastModified: string | null;
}

/** The post's time and Keepsake's own fields, as `x-amz-meta-*` (S3 sets no modified time). */
export interface S3Write {
  contentType?: string;
  postedAt?: Date | string;
  metadata?: Record<string, string>;
  /** Replace an object in place (sidecars); else `If-None-Match: *` refuses to overwrite. */
  overwrite?: boolean;
}

/** S3 refuses parts under 5 MiB (but the last) and more than 10,000 of them. */
export const MIN_PART = 5 * 1024 * 1024;
export const MAX_PARTS = 10_000;
export const POSTED_AT_META = "keepsake-posted-at";

const metadataOf = (w: S3Write): Record<string, string> => ({
  ...(w.metadata ?? {}),
  ...(w.postedAt !== undefined ? { [POSTED_AT_META]: new Date(w.postedAt).toISOString() } : {}),
});

/**
 * S3 through the official `@aws-sdk/client-s3`, set for compatible stores: no flexible
 * checksums unless an operation requires them (`WHEN_REQUIRED`: R2, B2 and older MinIO refuse
 * the SDK's default CRC headers) and integrity by `Content-MD5` instead, which every store
 * checks (a changed byte on the way is refused: `BadDigest`); each part's ETag and the final
 * ETag are compared with the md5s of what was sent. One attempt per call (`maxAttempts: 1`):
 * retrying is `retry.ts`'s. Refuses to call inside a database transaction.
 */
export function createS3Client(
  settings: S3Settings,
  options: {
    timeoutMs?: number;
    /** Told the outcome of every request (the status page's call counts). */
    record?: (failed: boolean) => void;
    /**
     * Connect only to public addresses (s3-endpoint.ts): an endpoint that is, or resolves to,
     * an address on Keepsake's own network is refused (`permission`, `endpoint_not_public`).
     */
    publicOnly?: boolean;
  } = {},
) {
  // An address literal is never looked up: it is judged here, once.
  const refused = options.publicOnly ? literalRefusal(settings.endpoint) : null;
  const sdk = new (aws().S3Client)({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle ?? true,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1,
    // Else the SDK prints a warning on the console for every failed request with a stream body:
    // failures are thrown classified, and the caller reports them.
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    requestHandler: {
      requestTimeout: options.timeoutMs ?? PROVIDER_TIMEOUT_MS * 3,
      connectionTimeout: PROVIDER_TIMEOUT_MS,
      ...(options.publicOnly ? publicOnlyAgents() : {}),
    },
  });
  const counter = s3CallCounter(options.record);
  sdk.middlewareStack.add(counter.middleware, counter.options);
  const Bucket = settings.bucket;
  const full = (key: string) => `${settings.prefix}${key.replace(/^\/+/, "")}`;
  async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
    assertOutsideTransaction(`S3 ${what}`);
    if (refused) throw s3Error(refused);
    try {
      return await run();
    } catch (err) {
      throw s3Error(err);
    }
  }

  const putOf = (key: string, w: S3Write) => ({
    Bucket,
    Key: full(key),
    ContentType: w.contentType ?? "application/octet-stream",
    Metadata: metadataOf(w),
    ...(w.overwrite ? {} : { IfNoneMatch: "*" }),
  });
  /** A single PutObject's ETag, which must be the md5 sent (else the object is deleted). */
  async function checked(key: string, answered: string | undefined, digest: string) {
    const etag = unquote(answered);
    if (/^[0-9a-f]{32}$/.test(etag) && etag !== digest) {
      await client.remove(key);
      throw etagMismatch("md5");
    }
    return etag;
  }

  /** One UploadPart; its ETag must be `digest()`: the md5 known before, or computed as sent. */
  async function sendPart(
    key: string,
    uploadId: string,
    partNumber: number,
    body: { Body: Readable; ContentLength: number; ContentMD5?: string },
    digest: () => Buffer,
    abortSignal?: AbortSignal,
  ): Promise<{ etag: string; md5: Buffer }> {
    const res = await call("UploadPart", () =>
      sdk.send(
        new (aws().UploadPartCommand)({
          Bucket,
          Key: full(key),
          UploadId: uploadId,
          PartNumber: partNumber,
          ...body,
        }),
        abortSignal ? { abortSignal } : {},
      ),
    );
    const md5 = digest();
    const etag = unquote(res.ETag);
    if (etag !== md5.toString("hex")) throw etagMismatch(`part ${partNumber}`);
    return { etag, md5 };
  }

  const client = {
    /** The object at `key` (below the prefix), or null. */
    async head(key: string) {
      try {
        const h = await call("HeadObject", () =>
          sdk.send(new (aws().HeadObjectCommand)({ Bucket, Key: full(key) })),
        );
        return {
          size: h.ContentLength ?? 0,
          etag: unquote(h.ETag),
          metadata: h.Metadata ?? {},
          lastModified: h.LastModified?.toISOString() ?? null,
        };
      } catch (err) {
        if (err instanceof ProviderError && err.kind === "not_found") return null;
        throw err;
      }
    },

    /** Every object below `prefix` (itself below the destination's prefix), every page. */
    async list(prefix = ""): Promise<S3Object[]> {
      const out: S3Object[] = [];
      let token: string | undefined;
      do {
        const page = await call("ListObjectsV2", () =>
          sdk.send(
            new (aws().ListObjectsV2Command)({
              Bucket,
              Prefix: full(prefix),
              ContinuationToken: token,
              MaxKeys: 1000,
            }),
          ),
        );
        for (const o of page.Contents ?? []) {
          if (!o.Key) continue;
          out.push({
            key: o.Key.slice(settings.prefix.length),
            size: o.Size ?? 0,
            etag: unquote(o.ETag),
            lastModified: o.LastModified?.toISOString() ?? null,
          });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return out;
    },

    async remove(key: string): Promise<void> {
      await call("DeleteObject", () =>
        sdk.send(new (aws().DeleteObjectCommand)({ Bucket, Key: full(key) })),
      );
    },

    async read(key: string): Promise<Buffer> {
      const res = await call("GetObject", () =>
        sdk.send(new (aws().GetObjectCommand)({ Bucket, Key: full(key) })),
      );
      return Buffer.from(await call("GetObject", () => res.Body!.transformToByteArray()));
    },

    /**
     * One PutObject of the bytes `parts` (held: S3 needs Content-MD5 before the body), with
     * `If-None-Match: *` unless `overwrite`; the answered ETag is compared with their md5, and
     * an object holding other bytes is deleted before `etag_mismatch` is thrown (so the write
     * can simply be made again).
     */
    async put(
      key: string,
      parts: readonly Uint8Array[],
      w: S3Write = {},
    ): Promise<{ etag: string }> {
      const digest = md5(parts);
      const res = await call("PutObject", () =>
        sdk.send(
          new (aws().PutObjectCommand)({
            ...putOf(key, w),
            ...bodyOf(parts),
            ContentMD5: digest.toString("base64"),
          }),
        ),
      );
      return { etag: await checked(key, res.ETag, digest.toString("hex")) };
    },

    /**
     * One PutObject of `length` bytes sent as `source` yields them (nothing held but the piece
     * in flight): no Content-MD5, which would need the bytes before the body, but their md5 is
     * computed as they pass and the answered ETag checked against it, as `put` does. A source
     * that fails (a download cut short) aborts the request before its end (S3 keeps nothing)
     * and its error is thrown.
     */
    async putStream(
      key: string,
      source: AsyncIterable<Uint8Array>,
      length: number,
      w: S3Write = {},
    ): Promise<{ etag: string; md5: string }> {
      const piped = hashedBody(source, length);
      const res = await call("PutObject", () =>
        sdk.send(
          new (aws().PutObjectCommand)({
            ...putOf(key, w),
            Body: piped.body,
            ContentLength: length,
          }),
          { abortSignal: piped.signal },
        ),
      ).catch(piped.failure);
      const digest = piped.digest().toString("hex");
      return { etag: await checked(key, res.ETag, digest), md5: digest };
    },

    async createMultipart(key: string, w: S3Write = {}): Promise<string> {
      const res = await call("CreateMultipartUpload", () =>
        sdk.send(
          new (aws().CreateMultipartUploadCommand)({
            Bucket,
            Key: full(key),
            ContentType: w.contentType ?? "application/octet-stream",
            Metadata: metadataOf(w),
          }),
        ),
      );
      if (!res.UploadId)
        throw new ProviderError("s3", "unknown", "The S3 storage did not open a multipart upload");
      return res.UploadId;
    },

    /** One part with Content-MD5; its ETag must be that md5 (else the stored part differs). */
    async uploadPart(
      key: string,
      uploadId: string,
      partNumber: number,
      parts: readonly Uint8Array[],
      /** Their md5, when the caller has it already. */
      digest: Buffer = md5(parts),
    ): Promise<{ etag: string; md5: Buffer }> {
      const body = { ...bodyOf(parts), ContentMD5: digest.toString("base64") };
      return sendPart(key, uploadId, partNumber, body, () => digest);
    },

    /**
     * One part of `length` bytes sent as `source` yields them (nothing held), as `putStream`
     * sends a PutObject: no Content-MD5, the md5 computed on the way and the part's ETag checked
     * against it. `source` is read once: a second try of the call (fresh keys) finds it spent
     * and throws `network`, so the upload is resumed from what S3 holds, never sent short.
     */
    async uploadPartStream(
      key: string,
      uploadId: string,
      partNumber: number,
      source: AsyncIterable<Uint8Array>,
      length: number,
    ): Promise<{ etag: string; md5: Buffer }> {
      const piped = hashedBody(source, length);
      const body = { Body: piped.body, ContentLength: length };
      return sendPart(key, uploadId, partNumber, body, piped.digest, piped.signal).catch(
        piped.failure,
      );
    },

    /** The parts an open upload holds (resuming after a cut or a restart); null when it is gone. */
    async listParts(key: string, uploadId: string) {
      const out: { partNumber: number; etag: string; size: number }[] = [];
      let marker: string | undefined;
      try {
        do {
          const page = await call("ListParts", () =>
            sdk.send(
              new (aws().ListPartsCommand)({
                Bucket,
                Key: full(key),
                UploadId: uploadId,
                PartNumberMarker: marker,
              }),
            ),
          );
          for (const p of page.Parts ?? [])
            out.push({ partNumber: p.PartNumber ?? 0, etag: unquote(p.ETag), size: p.Size ?? 0 });
          marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
        } while (marker);
      } catch (err) {
        if (err instanceof ProviderError && err.kind === "not_found") return null;
        throw err;
      }
      return out;
    },

    /**
     * Completes with `If-None-Match: *` (unless `overwrite`) and checks the multipart ETag (an
     * object that is not made of the parts sent is deleted before `etag_mismatch` is thrown).
     */
    async completeMultipart(
      key: string,
      uploadId: string,
      parts: readonly { etag: string; md5: Buffer }[],
      overwrite = false,
    ): Promise<{ etag: string }> {
      const res = await call("CompleteMultipartUpload", () =>
        sdk.send(
          new (aws().CompleteMultipartUploadCommand)({
            Bucket,
            Key: full(key),
            UploadId: uploadId,
            MultipartUpload: {
              Parts: parts.map((p, i) => ({ PartNumber: i + 1, ETag: `"${p.etag}"` })),
            },
            ...(overwrite ? {} : { IfNoneMatch: "*" }),
          }),
        ),
      );
      const etag = unquote(res.ETag);
      if (/-\d+$/.test(etag) && etag !== multipartEtag(parts.map((p) => p.md5))) {
        await client.remove(key);
        throw etagMismatch("multipart");
      }
      return { etag };
    },

    async abortMultipart(key: string, uploadId: string): Promise<void> {
      await call("AbortMultipartUpload", () =>
        sdk.send(
          new (aws().AbortMultipartUploadCommand)({ Bucket, Key: full(key), UploadId: uploadId }),
        ),
      );
    },

    /** Ends the SDK's sockets. */
    close() {
      sdk.destroy();
    },
  };
  return client;
}

export type S3DestinationClient = ReturnType<typeof createS3Client>;
