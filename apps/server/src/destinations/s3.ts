import { createHash } from "node:crypto";
import { DESTINATION_LABELS } from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { reconnectWords } from "../providers/failure-words.ts";
import { ProviderError } from "../providers/provider-error.ts";
import type { S3DestinationClient, S3Settings } from "../providers/s3/s3.client.ts";
import {
  partSize,
  S3_PART,
  S3KeyTakenError,
  type S3MultipartState,
  type S3UploadClient,
  uploadToS3,
} from "../providers/s3/s3-upload.ts";
import type { EngineSettings } from "../sync/index.ts";
import { type DestinationCall, destinationCaller } from "./caller.ts";
import {
  type Destination,
  type DestinationCapabilities,
  type DestinationCredentials,
  DestinationRevokedError,
  type DestinationSession,
  UploadSessionGoneError,
} from "./destination.ts";
import {
  bodyOf,
  declaredLength,
  keyOf,
  noObject,
  numbered,
  parseRef,
  refOf,
  storedObject,
  writeOf,
} from "./s3/objects.ts";
import { pipePut } from "./s3/piped-put.ts";

export const S3_KIND = "s3";
const LABEL = DESTINATION_LABELS.s3;
const MiB = 1024 * 1024;
/** R2 aborts multipart uploads left a week (AWS and MinIO keep them until a lifecycle rule does). */
const WEEK_MS = 7 * 24 * 3600 * 1000;
/** How many ` (n)` names are tried before a file is refused (other content at each). */
const MAX_NAMES = 20;
/** Clients kept for reuse across sessions (one per distinct storage and keys). */
const CLIENTS_KEPT = 64;

/**
 * S3-compatible storage's capabilities (destination.ts explains each). A file that fits one part
 * goes in one PutObject, larger ones as a multipart upload of equal parts (R2 needs them) of
 * `partBytes`, whole MiB, more for files over 10,000 parts. Of known length, the PutObject and
 * each part are piped from the download, their md5 checked against the ETag; of unknown length
 * (or resumed) each is held once, sent with Content-MD5. No modified time (the post's time is
 * `x-amz-meta-keepsake-posted-at`), no search by metadata.
 */
export const s3Capabilities = (partBytes: number = S3_PART): DestinationCapabilities => ({
  label: LABEL,
  maxSingleRequestBytes: partBytes,
  chunkQuantumBytes: MiB,
  maxChunkBytes: 5 * 1024 * MiB,
  lengthRequiredUpFront: false,
  verifiedHash: "s3_etag",
  setsModifiedTime: false,
  findsByTags: false,
  sessionLifetimeMs: WEEK_MS,
});

/** A failure a resumed upload can get past: a cut, a 5xx, a throttle, a part stored wrong. */
const resumable = (err: unknown) =>
  err instanceof ProviderError &&
  err.provider === "s3" &&
  (err.kind === "network" || err.kind === "transient" || err.kind === "throttled");

/** A download left unread (a failure) is let go rather than left open. */
async function release(body: AsyncGenerator<Uint8Array>, download: Response) {
  await body.return(undefined).catch(() => {});
  if (download.body && !download.body.locked) await download.body.cancel().catch(() => {});
}

/**
 * The upload's calls through the session's caller (backoff, keys read again once when
 * refused). A completion refused for its ETag is retried into NoSuchUpload (the client deleted
 * the object): `uploadToS3` then throws the session gone, and the item starts over.
 */
const through = (call: DestinationCall<S3DestinationClient>): S3UploadClient => ({
  head: (key) => call((c) => c.head(key)),
  put: (key, parts, w) => call((c) => c.put(key, parts, w)),
  createMultipart: (key, w) => call((c) => c.createMultipart(key, w)),
  uploadPart: (key, id, n, parts, digest) => call((c) => c.uploadPart(key, id, n, parts, digest)),
  // Its bytes are read once: a failure resumes the upload (`put`) rather than repeating the call.
  uploadPartStream: (key, id, n, source, length) =>
    call((c) => c.uploadPartStream(key, id, n, source, length), { retry: false }),
  listParts: (key, id) => call((c) => c.listParts(key, id)),
  abortMultipart: (key, id) => call((c) => c.abortMultipart(key, id)),
  completeMultipart: (key, id, parts, overwrite) =>
    call((c) => c.completeMultipart(key, id, parts, overwrite)),
});

/**
 * S3-compatible storage (AWS S3, Cloudflare R2, Backblaze B2, MinIO) behind the seam, over
 * `providers/s3`: the user's settings (`credentials.s3Settings`) make the client; every call
 * goes through `destinationCaller` (backoff, SlowDown's wait, the settings read again once when
 * the keys are refused). Identity is the key: folders are key prefixes and need no call, a
 * file's id is its key below the connection's prefix. Media are never overwritten
 * (`If-None-Match: *`): an object already at the key with the same ETag and size is adopted
 * (a retry after a kill between upload and record), another one keeps its place and the file
 * is written as `name (2).ext`. Sidecars and comments files are overwritten in place.
 */
export function createS3Destination(deps: {
  /** Makes a client for the user's settings (`createS3Client`). */
  client: (settings: S3Settings) => S3DestinationClient;
  credentials: Pick<DestinationCredentials, "s3Settings" | "refused">;
  settings: EngineSettings;
  clock: Clock;
  /** The part size (and so the largest single PutObject); 8 MiB by default. */
  partBytes?: number;
}): Destination {
  const partBytes = deps.partBytes ?? S3_PART;
  const clients = new Map<string, S3DestinationClient>();
  /** One client per storage and keys, reused by the sessions of the same user. */
  function clientFor(settings: S3Settings): S3DestinationClient {
    const id = createHash("sha256").update(JSON.stringify(settings)).digest("hex");
    let client = clients.get(id);
    if (!client) {
      client = deps.client(settings);
      if (clients.size >= CLIENTS_KEPT) clients.delete(clients.keys().next().value as string);
      clients.set(id, client);
    }
    return client;
  }

  function session(call: DestinationCall<S3DestinationClient>): DestinationSession {
    const s3 = through(call);
    const head = async (key: string) => {
      const there = await s3.head(key);
      if (!there) throw noObject(key);
      return there;
    };

    return {
      ensureFolder: async (_accountKey, path) => ({
        id: path.join("/"),
        recordedAt: deps.clock.now(),
        adopted: false,
      }),
      forgetFolder: async () => {},
      findPostFiles: async () => new Map(),
      findItem: async () => [],

      async put(spec, source, recorder, control) {
        const total = declaredLength(source.download);
        const resumed = control.resume ? parseRef(control.resume.ref) : null;
        if (control.resume && !resumed)
          throw new UploadSessionGoneError("The recorded S3 upload is not one Keepsake knows");
        let key = resumed?.key ?? keyOf(spec.folderId, spec.name);
        let download = source.download;
        let session = resumed ? { uploadId: resumed.uploadId, partBytes: resumed.partSize } : null;
        /** The multipart upload this put opened, once recorded (resumed at once after a cut). */
        let opened: S3MultipartState | null = null;
        for (let n = 1; ; n++) {
          // A multipart upload is recorded (resumed, or opened below): closed when it ends.
          let open = session !== null;
          const reading = download;
          const body = bodyOf(reading);
          try {
            // A length known to fit one part: piped into one PutObject, nothing held.
            const out =
              !resumed && total !== null && total <= partSize(total, partBytes)
                ? await pipePut({
                    call,
                    key,
                    write: writeOf(spec),
                    total,
                    download: reading,
                    reopen: () => source.reopen(),
                    beforePut: () => {
                      control.signal?.throwIfAborted();
                      control.checkLease();
                    },
                  })
                : await uploadToS3(s3, {
                    key,
                    write: writeOf(spec),
                    source: body,
                    total,
                    partBytes,
                    session,
                    onSession: async (s) => {
                      open = true;
                      opened = s;
                      await recorder.opened(
                        refOf({ key, uploadId: s.uploadId, partSize: s.partBytes }),
                        total,
                      );
                    },
                    beforePart: () => {
                      control.signal?.throwIfAborted();
                      control.checkLease();
                    },
                    // The caller retries each call (with backoff): no second layer of retries here.
                    recoveries: 1,
                    sessionGone: () =>
                      new UploadSessionGoneError(`The S3 multipart upload of ${key} is gone`),
                  });
            if (open) await recorder.closed();
            return storedObject(key, out, spec);
          } catch (err) {
            // A piped part failed (its bytes are gone): the upload just recorded is resumed at
            // once, from the media read again (what S3 holds is skipped, not sent). Once: the
            // resumed upload is a `session`, read whole, which retries its own parts.
            if (opened && !session && resumable(err)) {
              session = opened;
              download = await source.reopen();
              n--;
              continue;
            }
            if (!(err instanceof S3KeyTakenError)) throw err;
            // The upload (if any) was aborted; what is at the key decides.
            if (open) await recorder.closed();
            const there = await s3.head(key);
            if (there && there.etag === err.sent.etag && there.size === err.sent.size)
              return storedObject(key, there, spec);
            if (n >= MAX_NAMES)
              throw new ProviderError(
                "s3",
                "unknown",
                `S3 storage: ${MAX_NAMES} files named like ${spec.name} already exist`,
              );
            key = keyOf(spec.folderId, numbered(spec.name, n + 1));
            session = null;
            opened = null;
            download = await source.reopen();
          } finally {
            await release(body, reading);
          }
        }
      },

      async putBytes(spec, bytes) {
        const key = keyOf(spec.folderId, spec.name);
        const { etag } = await s3.put(key, [bytes], writeOf(spec, true));
        return storedObject(key, { size: bytes.length, etag }, spec);
      },

      async uploadStatus(ref, total) {
        const r = parseRef(ref);
        if (!r) return null;
        const parts = await s3.listParts(r.key, r.uploadId);
        if (parts) {
          // What S3 holds from the first byte on (parts 1, 2, … without a gap).
          const sorted = [...parts].sort((a, b) => a.partNumber - b.partNumber);
          let received = 0;
          for (const [i, p] of sorted.entries()) {
            if (p.partNumber !== i + 1) break;
            received += p.size;
          }
          return { open: { ref, total, received } };
        }
        // The upload is gone: completed (the object is there, as large as recorded, in as many
        // parts as its part size makes), or aborted and expired.
        const there = await s3.head(r.key);
        if (!there) return null;
        if (total !== null) {
          const count = Math.max(1, Math.ceil(total / r.partSize));
          if (there.size !== total || !there.etag.endsWith(`-${count}`)) return null;
        }
        return { done: storedObject(r.key, there) };
      },

      async replace(fileId, bytes, mimeType) {
        const there = await head(fileId);
        const { etag } = await s3.put(fileId, [bytes], {
          contentType: mimeType,
          metadata: there.metadata,
          overwrite: true,
        });
        return storedObject(fileId, { size: bytes.length, etag, metadata: there.metadata });
      },

      get: async (fileId) => storedObject(fileId, await head(fileId)),
      remove: (fileId) => call((c) => c.remove(fileId)),
    };
  }

  return {
    name: S3_KIND,
    capabilities: s3Capabilities(partBytes),
    open(userId, signal) {
      // The settings the client was made from: what S3 refused, when it refuses the keys.
      const held = new WeakMap<S3DestinationClient, S3Settings>();
      const call = destinationCaller<S3DestinationClient>({
        credential: async () => {
          const settings = await deps.credentials.s3Settings(userId);
          const client = clientFor(settings);
          held.set(client, settings);
          return client;
        },
        refused: async (client, reason) => {
          const settings = held.get(client);
          if (settings) await deps.credentials.refused?.(userId, S3_KIND, reason, settings);
        },
        revoked: (msg) => new DestinationRevokedError(S3_KIND, msg),
        reconnect: reconnectWords.s3,
        settings: deps.settings,
        signal,
      });
      return session(call);
    },
  };
}
