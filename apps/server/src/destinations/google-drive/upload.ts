import { createHash } from "node:crypto";
import {
  type DriveClient,
  type DriveFile,
  type DriveFileMetadata,
  type MediaInRoom,
  RESUMABLE_QUANTUM,
  type UploadProgress,
} from "../../providers/google/drive.client.ts";
import { isRetryable, ProviderError, retryAfterOf } from "../../providers/provider-error.ts";
import { abortableSleep, backoffDelay } from "../../providers/retry.ts";
import type { EngineSettings } from "../../sync/index.ts";
import type { StoredFile } from "../destination.ts";
import type { DriveCall } from "./caller.ts";
import { cdnReader, createPipedSmall } from "./piped-small.ts";
import { createPipedUpload, type OpenSession, SessionGoneError } from "./piped-upload.ts";
import { bufferPool, Pending, wakeUp } from "./upload-buffers.ts";

export { type OpenSession, SessionGoneError } from "./piped-upload.ts";

/** The item an upload is for, as its ledger knows it. */
export interface UploadItem {
  key: string;
  name: string;
}

/** Where the uploader records the item's session (before its first byte) and its file. */
export interface UploadLedger {
  rememberSession(item: UploadItem, uri: string, total: number | null): Promise<unknown>;
  forgetSession(item: UploadItem): Promise<unknown>;
  record(item: UploadItem, file: DriveFile, found: boolean): Promise<StoredFile>;
}

/** Room kept before a small file's bytes for the multipart head (its JSON metadata). */
const HEAD_ROOM = 64 * 1024;
/** Room kept after them for the multipart tail. */
const TAIL_ROOM = 1024;

/**
 * Drive's md5 must be the md5 of what was sent: a file that differs is removed (then
 * `afterRemove` runs) and the attempt fails as transient, so the item is uploaded again.
 */
export async function keepIfIntact(
  call: DriveCall,
  drive: DriveClient,
  file: DriveFile,
  expected: string,
  afterRemove?: () => Promise<unknown>,
): Promise<void> {
  if (!file.md5Checksum || file.md5Checksum === expected) return;
  await call((t) => drive.remove(t, file.id));
  await afterRemove?.();
  throw new ProviderError(
    "google",
    "transient",
    "The file in Drive does not match what was sent (md5); uploading again",
  );
}

/**
 * Streams one CDN download into Drive: small files in one multipart request with their
 * metadata, anything larger through a resumable session in chunks of a multiple of 256 KiB.
 * A download of known length is piped into that request (`pipeSmall`) or into the chunk
 * requests (`piped-upload.ts`): nothing is held but the piece in flight. One of unknown length
 * is read into a pooled buffer while it fits the multipart limit; past it, a chunk ahead, since
 * a chunk's length must be known before it is sent: the next chunk is read while the previous
 * one is in flight, and at most two are held. Every byte is hashed on the way and the md5
 * compared with Drive's answer.
 */
export function createUploader(deps: {
  drive: DriveClient;
  settings: Pick<
    EngineSettings,
    "chunkBytes" | "multipartMaxBytes" | "smallUploadBuffers" | "backoff" | "sleep" | "random"
  >;
}) {
  const { drive, settings: s } = deps;
  const chunkBytes = Math.max(
    RESUMABLE_QUANTUM,
    Math.floor(s.chunkBytes / RESUMABLE_QUANTUM) * RESUMABLE_QUANTUM,
  );

  const pipe = createPipedUpload({ drive, settings: s, chunkBytes });
  const buffers = bufferPool(
    HEAD_ROOM + s.multipartMaxBytes + TAIL_ROOM,
    Math.max(1, s.smallUploadBuffers),
  );

  const pipeSmall = createPipedSmall(drive);

  return async function upload(args: {
    call: DriveCall;
    ledger: UploadLedger;
    item: UploadItem;
    meta: DriveFileMetadata;
    resume: OpenSession | null;
    download: Response;
    /** The same download again, from its first byte (after a chunk request broke off). */
    reopen: () => Promise<Response>;
    /** Throws when the claim is lost or `signal` aborted; checked before each chunk and retry. */
    checkLease: () => void;
    /** The worker shuts down: the request in flight is broken off and no retry sleeps on. */
    signal?: AbortSignal;
  }): Promise<StoredFile> {
    const { call, ledger, item, meta, resume, download: res, checkLease, signal } = args;
    const sleep = abortableSleep(s.sleep, signal);
    const declared = res.headers.get("content-length");
    const total = declared !== null && /^\d+$/.test(declared) ? Number(declared) : null;
    const contentType = meta.mimeType ?? "application/octet-stream";
    if (total !== null && (resume || total > s.multipartMaxBytes)) {
      let session = resume;
      if (!session) {
        const uri = await call((t) => drive.startResumable(t, meta, contentType, total));
        // Recorded before the first byte: a worker that dies now leaves a session to resume.
        await ledger.rememberSession(item, uri, total);
        session = { uri, total, received: 0 };
      }
      const { file, md5 } = await pipe({
        call,
        session,
        total,
        download: res,
        reopen: args.reopen,
        checkLease,
        ...(signal ? { signal } : {}),
      });
      await keepIfIntact(call, drive, file, md5, () => ledger.forgetSession(item));
      return await ledger.record(item, file, false);
    }
    if (total !== null && !resume) {
      const { file, md5 } = await pipeSmall({
        call,
        meta,
        contentType,
        total,
        download: res,
        reopen: args.reopen,
        ...(signal ? { signal } : {}),
      });
      await keepIfIntact(call, drive, file, md5);
      return await ledger.record(item, file, false);
    }
    const { reader, read } = cdnReader(res);
    const md5 = createHash("md5");
    const pending = new Pending();
    let position = 0;

    try {
      // Unknown length: read up to the multipart limit into a pooled buffer; if the body ends
      // there, one request sent from that buffer.
      if (!resume && (total === null || total <= s.multipartMaxBytes)) {
        const buffer = await buffers.take();
        try {
          const media: MediaInRoom = { buffer, start: HEAD_ROOM, length: 0 };
          for (;;) {
            const r = await read();
            if (r.done) {
              const body = buffer.subarray(HEAD_ROOM, HEAD_ROOM + media.length);
              const digest = md5.update(body).digest("hex");
              const file = await call((t) => drive.multipart(t, meta, media, contentType));
              await keepIfIntact(call, drive, file, digest);
              return await ledger.record(item, file, false);
            }
            position += r.value.length;
            if (media.length + r.value.length > s.multipartMaxBytes) {
              // Larger than announced: continue as a resumable upload with what was read so
              // far (copied out, the buffer goes back to the pool).
              pending.push(Buffer.from(buffer.subarray(HEAD_ROOM, HEAD_ROOM + media.length)));
              pending.push(r.value);
              break;
            }
            buffer.set(r.value, HEAD_ROOM + media.length);
            media.length += r.value.length;
          }
        } finally {
          buffers.give(buffer);
        }
        for (const p of pending.parts) md5.update(p);
      }

      let session = resume;
      if (!session) {
        const uri = await call((t) => drive.startResumable(t, meta, contentType, total));
        // Recorded before the first byte: a worker that dies now leaves a session to resume.
        await ledger.rememberSession(item, uri, total);
        session = { uri, total, received: 0 };
      }
      const { uri } = session;
      /** On resume the body is read from the start (for the md5); bytes Drive holds are skipped. */
      const skipUntil = session.received;
      /** Bytes Drive holds; `pending` starts at this offset of the stream. */
      let offset = session.received;

      const send = async (final: boolean): Promise<UploadProgress> => {
        const size = final ? pending.length : chunkBytes;
        const declaredTotal = final ? position : total;
        for (let attempt = 0; ; attempt++) {
          checkLease();
          try {
            const r = await call(
              (t) => drive.putChunk(t, uri, pending.head(size), offset, declaredTotal, signal),
              { retry: false },
            );
            if (r === "gone") throw new SessionGoneError();
            return r;
          } catch (err) {
            if (!isRetryable(err) || attempt + 1 >= s.backoff.attempts) throw err;
            checkLease();
            // The request broke off: ask Drive how much it kept, and continue from there.
            await sleep(retryAfterOf(err) ?? backoffDelay(attempt, s.backoff, s.random));
            const st = await call((t) => drive.status(t, uri, declaredTotal));
            if (st === "gone") throw new SessionGoneError();
            if (st.done || st.received !== offset) return st;
          }
        }
      };
      const acknowledge = (r: { received: number }, size: number) => {
        const acknowledged = r.received - offset;
        if (acknowledged < 0 || acknowledged > size) {
          throw new ProviderError(
            "google",
            "transient",
            "Drive reported an unexpected upload offset",
          );
        }
        pending.drop(acknowledged);
        offset = r.received;
      };

      // The reader fills `pending` (up to two chunks) while the sender has a chunk in flight.
      const more = wakeUp();
      const room = wakeUp();
      let eof = false;
      let stop = false;
      let readError: unknown = null;
      const filling = (async () => {
        try {
          while (!stop) {
            while (!stop && pending.length >= 2 * chunkBytes) await room.wait();
            if (stop) return;
            const r = await read();
            if (r.done) return;
            const piece = r.value;
            md5.update(piece);
            const start = position;
            position += piece.length;
            if (position <= skipUntil) continue;
            pending.push(start < skipUntil ? piece.subarray(skipUntil - start) : piece);
            more.fire();
          }
        } catch (err) {
          readError = err;
        } finally {
          eof = true;
          more.fire();
        }
      })();

      let file: DriveFile | null = null;
      try {
        for (;;) {
          while (!eof && pending.length < chunkBytes) await more.wait();
          if (readError) throw readError;
          if (eof) break;
          const r = await send(false);
          room.fire();
          if (!r.done) {
            acknowledge(r, chunkBytes);
            continue;
          }
          // The chunk ended the declared length: Drive finished; the body must end there too.
          if (total === null || offset + chunkBytes !== total) {
            throw new ProviderError("google", "transient", "Drive finished the upload early");
          }
          pending.drop(chunkBytes);
          offset = total;
          file = r.file;
          while (!eof) await more.wait();
          if (readError) throw readError;
          break;
        }
        if (total !== null && position !== total) {
          throw new ProviderError(
            "instagram",
            "network",
            "The download from the Instagram CDN was cut short",
          );
        }
        if (file) {
          // Finished by the last chunk above.
        } else if (position <= offset && pending.length === 0) {
          // Every byte was already in Drive (a resumed session): the status query finishes it.
          const st = await call((t) => drive.status(t, uri, position));
          if (st === "gone") throw new SessionGoneError();
          file = st.done ? st.file : null;
        } else {
          while (!file) {
            const size = pending.length;
            const r = await send(true);
            if (r.done) file = r.file;
            else {
              acknowledge(r, size);
              if (pending.length === 0) break;
            }
          }
        }
      } finally {
        stop = true;
        room.fire();
        await reader.cancel().catch(() => {});
        await filling;
      }
      if (!file) throw new ProviderError("google", "transient", "Drive did not finish the upload");
      await keepIfIntact(call, drive, file, md5.digest("hex"), () => ledger.forgetSession(item));
      return await ledger.record(item, file, false);
    } finally {
      await reader.cancel().catch(() => {});
    }
  };
}

export type Uploader = ReturnType<typeof createUploader>;
