import { dropboxContentHash } from "../../providers/dropbox/content-hash.ts";
import type {
  DropboxClient,
  DropboxCommit,
  DropboxFile,
} from "../../providers/dropbox/dropbox.client.ts";
import {
  type DropboxSessionState,
  hashMismatch,
  uploadThroughSession,
} from "../../providers/dropbox/dropbox-upload.ts";
import { ProviderError } from "../../providers/provider-error.ts";
import type { DestinationCall } from "../caller.ts";
import {
  type ByteSource,
  type FileSpec,
  type OpenUpload,
  type UploadRecorder,
  UploadSessionGoneError,
} from "../destination.ts";
import { cdnReader } from "../google-drive/piped-small.ts";
import { filePath, numbered, parseSessionRef, sessionRef } from "./files.ts";
import { pipeSmall, tooLong } from "./piped-small.ts";

/** How many names (`name`, `name (2)` … `name (n)`) are tried before the write fails. */
const MAX_NUMBERED = 20;

export const isConflict = (err: unknown) =>
  err instanceof ProviderError && err.provider === "dropbox" && err.code === "conflict";

const tooManyNamesTaken = (name: string) =>
  new ProviderError("dropbox", "unknown", `Dropbox holds other files at every name for ${name}`);

const cutShort = () =>
  new ProviderError("instagram", "network", "The download from the Instagram CDN was cut short");

/** A buffer an upload holds, and how it is given back. */
interface Lent {
  buffer: Buffer;
  giveBack: () => void;
}

/** Session chunk buffers kept for reuse when no upload holds them (each `chunkBytes` long). */
const KEPT_BUFFERS = 4;

/** A new file's commit at `path`: never over another file, the post's time as its time. */
export const addCommit = (path: string, spec: FileSpec): DropboxCommit => ({
  path,
  mode: "add",
  ...(spec.time ? { clientModified: spec.time } : {}),
});

/** A download's bytes after `prefix` (read earlier from the same reader), checked against `total`. */
function bodyOf(
  r: ReturnType<typeof cdnReader>,
  total: number | null,
  prefix: Uint8Array[] = [],
): { bytes: AsyncIterable<Uint8Array>; cancel: () => Promise<void> } {
  async function* bytes() {
    let position = 0;
    for (const p of prefix) {
      position += p.length;
      yield p;
    }
    for (;;) {
      const next = await r.read();
      if (next.done) break;
      position += next.value.length;
      if (total !== null && position > total) throw tooLong();
      yield next.value;
    }
    if (total !== null && position < total) throw cutShort();
  }
  return { bytes: bytes(), cancel: () => r.reader.cancel().catch(() => {}) };
}

/**
 * Puts files into Dropbox. Up to `smallBytes` in one `files/upload`: piped as downloaded when
 * its length is known (`pipeSmall`: the hash computed on the way, compared with the answer's),
 * else read into memory (at most one chunk, sent as its pieces) and sent with its content hash,
 * so Dropbox refuses bytes that differ. Larger ones (or ones grown past it while read) go through
 * an upload session (`uploadThroughSession`), recorded before its first byte: of known length
 * piped whole into appends of `pipeBytes` (nothing held), else in appends of `chunkBytes`
 * gathered in a pooled buffer; the content hash compared at the finish.
 * Every file goes in `add` mode: the same bytes already at the path answer the file there (a
 * retry after a kill adopts what it wrote, never a second copy); other bytes there are kept and
 * the new file is named `name (2).ext` (then (3)…).
 */
export function createDropboxUploader(deps: {
  client: DropboxClient;
  chunkBytes: number;
  /** Bytes per piped append (media of known length), a multiple of 4 MiB. */
  pipeBytes: number;
  smallBytes: number;
}) {
  const { client, chunkBytes, pipeBytes, smallBytes } = deps;
  /** Chunk buffers no session holds: one is taken per session try, given back after it. */
  const free: Buffer[] = [];
  const takeBuffer = () => free.pop() ?? Buffer.allocUnsafeSlow(chunkBytes);
  const giveBuffer = (b: Buffer) => {
    if (free.length < KEPT_BUFFERS) free.push(b);
  };
  /** A chunk buffer from the pool, given back to it after. */
  const pooled = (): Lent => {
    const buffer = takeBuffer();
    return { buffer, giveBack: () => giveBuffer(buffer) };
  };

  /** A small download of known length piped, one request per name tried (taken: the next). */
  async function putPiped(
    call: DestinationCall,
    spec: FileSpec,
    source: ByteSource,
    total: number,
    signal?: AbortSignal,
  ): Promise<DropboxFile> {
    let first: Response | null = source.download;
    const open = async () => {
      const d = first ?? (await source.reopen());
      first = null;
      return d;
    };
    try {
      for (let n = 1; n <= MAX_NUMBERED; n++) {
        const commit = addCommit(filePath(spec.folderId, numbered(spec.name, n)), spec);
        try {
          return await pipeSmall(client, call, commit, total, open, signal);
        } catch (err) {
          if (isConflict(err)) continue;
          throw err;
        }
      }
      throw tooManyNamesTaken(spec.name);
    } finally {
      await (first as Response | null)?.body?.cancel().catch(() => {});
    }
  }

  /** Bytes read whole (unknown length), one request per name tried (taken: the next name). */
  async function putSmall(
    call: DestinationCall,
    spec: FileSpec,
    parts: readonly Uint8Array[],
    signal?: AbortSignal,
  ): Promise<DropboxFile> {
    const hash = dropboxContentHash(parts);
    for (let n = 1; n <= MAX_NUMBERED; n++) {
      const commit = addCommit(filePath(spec.folderId, numbered(spec.name, n)), spec);
      let file: DropboxFile;
      try {
        file = await call((t) => client.upload(t, commit, parts, hash, signal));
      } catch (err) {
        if (isConflict(err)) continue;
        throw err;
      }
      if (file.contentHash !== hash) {
        // Only a new file answers with other bytes (`add` answers an existing one only when equal).
        await call((t) => client.remove(t, file.id));
        throw hashMismatch();
      }
      return file;
    }
    throw tooManyNamesTaken(spec.name);
  }

  /**
   * The name the finish writes at: the first of `name`, `name (2)`… that is free, or that holds
   * these very bytes (that file is the answer: adopted).
   */
  async function finishAt(
    token: string,
    spec: FileSpec,
    hash: string,
  ): Promise<{ path: string } | DropboxFile> {
    for (let n = 1; n <= MAX_NUMBERED; n++) {
      const path = filePath(spec.folderId, numbered(spec.name, n));
      const there = await client.getMetadata(token, path);
      if (!there) return { path };
      if (there.file?.contentHash === hash) return there.file;
    }
    throw tooManyNamesTaken(spec.name);
  }

  async function putSession(
    call: DestinationCall,
    spec: FileSpec,
    source: ByteSource,
    recorder: UploadRecorder,
    control: { resume: OpenUpload | null; checkLease: () => void; signal?: AbortSignal },
    first: { bytes: AsyncIterable<Uint8Array>; cancel: () => Promise<void> } | null,
    total: number | null,
  ): Promise<DropboxFile> {
    const path = filePath(spec.folderId, spec.name);
    let state: DropboxSessionState | null = null;
    let recorded: string | null = null;
    const { resume } = control;
    if (resume) {
      const ref = parseSessionRef(resume.ref);
      const held = ref
        ? await call((t) => client.sessionOffset(t, ref.sessionId, resume.received))
        : null;
      if (!ref || held === null) {
        await first?.cancel();
        throw new UploadSessionGoneError("The Dropbox upload session is gone");
      }
      state = { sessionId: ref.sessionId, offset: held };
      recorded = ref.sessionId;
    }
    let pending = first;
    try {
      return await call(async (token) => {
        control.checkLease();
        // Each try reads the media from its first byte (every byte is hashed); held bytes are skipped.
        const body = pending ?? bodyOf(cdnReader(await source.reopen()), total);
        pending = null;
        // Of known length every byte is piped; else each chunk is gathered in a pooled buffer.
        let lent: Lent | null = null;
        try {
          return await uploadThroughSession(client, token, {
            commit: addCommit(path, spec),
            source: body.bytes,
            session: state,
            chunkBytes,
            pipeBytes,
            buffer: () => {
              lent ??= pooled();
              return lent.buffer;
            },
            ...(total !== null ? { length: total } : {}),
            onSession: async (s) => {
              control.checkLease();
              state = s;
              if (s.sessionId === recorded) return;
              // Recorded before its first byte: a worker that dies now leaves it to resume.
              await recorder.opened(
                sessionRef({ sessionId: s.sessionId, path, contentHash: null }),
                total,
              );
              recorded = s.sessionId;
            },
            beforeFinish: async (s, hash) => {
              control.checkLease();
              const at = await finishAt(token, spec, hash);
              if ("id" in at) return at;
              // With the hash: a session found gone after this finished at `at.path`.
              await recorder.opened(
                sessionRef({ sessionId: s.sessionId, path: at.path, contentHash: hash }),
                total,
              );
              return addCommit(at.path, spec);
            },
            ...(control.signal ? { signal: control.signal } : {}),
          });
        } catch (err) {
          // Dropbox holds other bytes than the media's: the next try starts a new session.
          if (err instanceof ProviderError && err.code === "content_hash_mismatch") state = null;
          // The session vanished under an append or the finish: the item starts over.
          if (
            err instanceof ProviderError &&
            err.provider === "dropbox" &&
            err.kind === "not_found"
          )
            throw new UploadSessionGoneError("The Dropbox upload session is gone");
          throw err;
        } finally {
          await body.cancel();
          (lent as Lent | null)?.giveBack();
        }
      });
    } catch (err) {
      // Dropbox refused the bytes for good: the session is spent, the next attempt starts anew.
      if (err instanceof ProviderError && err.code === "content_hash_mismatch")
        await recorder.closed();
      throw err;
    } finally {
      await (pending as { cancel: () => Promise<void> } | null)?.cancel();
    }
  }

  return async function put(
    call: DestinationCall,
    spec: FileSpec,
    source: ByteSource,
    recorder: UploadRecorder,
    control: { resume: OpenUpload | null; checkLease: () => void; signal?: AbortSignal },
  ): Promise<DropboxFile> {
    const declared = source.download.headers.get("content-length");
    const total = declared !== null && /^\d+$/.test(declared) ? Number(declared) : null;
    if (!control.resume && total !== null && total <= smallBytes)
      return putPiped(call, spec, source, total, control.signal);
    const reader = cdnReader(source.download);
    if (control.resume || total !== null) {
      const file = await putSession(
        call,
        spec,
        source,
        recorder,
        control,
        bodyOf(reader, total),
        total,
      );
      await recorder.closed();
      return file;
    }
    // Of unknown length: read into memory while it fits one request.
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      parts.push(r.value);
      size += r.value.length;
      if (size > smallBytes) break;
    }
    if (size > smallBytes) {
      const file = await putSession(
        call,
        spec,
        source,
        recorder,
        control,
        bodyOf(reader, null, parts),
        null,
      );
      await recorder.closed();
      return file;
    }
    return putSmall(call, spec, parts, control.signal);
  };
}

export type DropboxUploader = ReturnType<typeof createDropboxUploader>;
