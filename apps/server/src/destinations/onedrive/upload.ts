import {
  type DriveItem,
  MAX_SIMPLE_UPLOAD,
  type OneDriveClient,
} from "../../providers/microsoft/onedrive.client.ts";
import { lengthRequired, uploadThroughSession } from "../../providers/microsoft/onedrive-upload.ts";
import { QuickXorHasher } from "../../providers/microsoft/quickxor.ts";
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
import {
  isConflict,
  joinPath,
  mismatch,
  parseRef,
  refOf,
  sameSecond,
  suffixed,
  timesOf,
} from "./paths.ts";

/** How many " (n)" names are tried before giving up (each taken by a different file). */
const MAX_NAMES = 50;
/**
 * How often a name refused as taken but then not found is tried again (deleted meanwhile); past
 * that it is skipped (OneDrive for Business refuses a name another upload session holds).
 */
const MAX_VANISHED = 3;

export interface UploadDeps {
  client: OneDriveClient;
  call: DestinationCall;
  /** Bytes per range request (a multiple of 320 KiB under 60 MiB); piped, or held for an unknown length. */
  fragmentBytes: number;
  /** The most read ahead into memory to learn an unknown length; longer media is refused. */
  unknownLengthLimit: number;
}

export interface Placed {
  path: string;
  item: DriveItem;
}

const lengthChanged = (message: string) =>
  new ProviderError("microsoft", "transient", message, { code: "length_changed" });

function declaredLength(res: Response): number | null {
  const v = res.headers.get("content-length");
  return v !== null && /^\d+$/.test(v) ? Number(v) : null;
}

/** Reads a body into memory, refusing (`tooLong`) past `limit` bytes. */
async function readUpTo(res: Response, limit: number, tooLong: () => Error) {
  const held: Uint8Array[] = [];
  let total = 0;
  if (!res.body) return { held, total };
  for await (const piece of res.body) {
    total += piece.length;
    if (total > limit) throw tooLong();
    held.push(piece);
  }
  return { held, total };
}

async function* replay(held: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* held;
}

async function* bodyOf(res: Response): AsyncGenerator<Uint8Array> {
  if (res.body) yield* res.body;
}

/**
 * Writes media to OneDrive as a new file, exactly once: up to 4 MB in one `PUT …/content`
 * (then its `fileSystemInfo` PATCHed to the post's time), larger through an upload session
 * opened with the post's time and recorded before its first byte. Nothing is overwritten: a
 * name taken by the same bytes (size and quickXorHash) is that file — an earlier attempt wrote
 * it and died before recording it — and is answered; one taken by other bytes leaves it as it
 * is and tries `name (2).ext`, then `(3)`…
 *
 * A download of known length is piped into the simple PUT or each fragment (a fresh download per
 * try, hashed on the way). OneDrive needs the size before the first byte: media of unknown
 * length is read into memory up to `unknownLengthLimit` to learn it (and sent from the pieces
 * read); longer media is refused (`length_required`, permanent).
 */
export function createOneDriveUpload(deps: UploadDeps) {
  const { client, call } = deps;

  /** The item at `path` when it holds exactly these bytes (its time set to the post's), else null. */
  async function sameFile(
    path: string,
    size: number,
    hash: () => Promise<string>,
    spec: FileSpec,
  ): Promise<Placed | "absent" | null> {
    const there = await call((t) => client.getByPath(t, path));
    if (!there) return "absent";
    if (there.folder || there.size !== size || there.quickXorHash !== (await hash())) return null;
    const times = timesOf(spec);
    if (!times || !spec.time || sameSecond(there.fileModified, spec.time))
      return { path, item: there };
    return { path, item: await call((t) => client.setTimes(t, there.id, times)) };
  }

  /**
   * One request (≤ 4 MB) per name tried, its body piped from `read` (a fresh read of the media
   * from its first byte for each try: a retry, a token refresh), so nothing is held but the
   * piece in flight; every byte is hashed as it goes. Verified, then the post's time.
   */
  async function putSmall(
    spec: FileSpec,
    size: number,
    read: () => Promise<{ pieces: AsyncIterable<Uint8Array>; cancel: () => Promise<void> }>,
    signal?: AbortSignal,
  ): Promise<Placed> {
    /** The quickXorHash of a read that went through every byte. */
    let known: string | null = null;
    async function* hashed(pieces: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
      const h = new QuickXorHasher();
      for await (const piece of pieces) {
        if (h.length + piece.length > size)
          throw lengthChanged("The media is longer than announced");
        h.update(piece);
        yield piece;
      }
      if (h.length < size) throw lengthChanged("The media is shorter than announced");
      known = h.digest();
    }
    const hashOnce = async () => {
      if (known === null) {
        const r = await read();
        try {
          for await (const _ of hashed(r.pieces)) {
            // Read for the hash only.
          }
        } finally {
          await r.cancel();
        }
      }
      return known as unknown as string;
    };
    let vanished = 0;
    for (let n = 1; n <= MAX_NAMES; ) {
      const path = joinPath(spec.folderId, suffixed(spec.name, n));
      let item: DriveItem;
      try {
        item = await call(async (t) => {
          known = null;
          const r = await read();
          try {
            const body = { stream: hashed(r.pieces), length: size };
            return await client.putSmall(t, path, body, "fail", spec.mimeType, signal);
          } finally {
            await r.cancel();
          }
        });
      } catch (err) {
        if (!isConflict(err)) throw err;
        const same = await sameFile(path, size, hashOnce, spec);
        if (same === "absent" && ++vanished <= MAX_VANISHED) continue; // Deleted meanwhile.
        if (same && same !== "absent") return same;
        n++;
        continue;
      }
      // OneDrive answered before the whole body was read: not the file meant.
      if (known === null || (item.quickXorHash !== null && item.quickXorHash !== known)) {
        await call((t) => client.remove(t, item.id));
        throw mismatch();
      }
      const times = timesOf(spec);
      if (times) item = await call((t) => client.setTimes(t, item.id, times));
      return { path, item };
    }
    throw new ProviderError("microsoft", "unknown", `OneDrive: too many files named ${spec.name}`);
  }

  return async function put(
    spec: FileSpec,
    source: ByteSource,
    recorder: UploadRecorder,
    control: { resume: OpenUpload | null; checkLease: () => void; signal?: AbortSignal },
  ): Promise<Placed> {
    let fresh = true;
    /** The download from its first byte: the one given, then a new one for each retry. */
    const open = async () => {
      if (!fresh) return source.reopen();
      fresh = false;
      return source.download;
    };

    /**
     * Sends the media through the recorded session from `received` on; retried with backoff.
     * "conflict": another file took the name before the session could commit (OneDrive may
     * check `fail` only then); the session is let go.
     */
    async function throughSession(
      path: string,
      url: string,
      total: number,
      received: number,
      held: Uint8Array[] | null,
    ): Promise<Placed | "conflict"> {
      let first = true;
      type Outcome = { item: DriveItem } | { err: ProviderError } | { conflict: true };
      const out = await call(async (t): Promise<Outcome> => {
        control.checkLease();
        let at = received;
        if (!first) {
          const st = await client.sessionStatus(url);
          if (st === "gone")
            throw new UploadSessionGoneError("The OneDrive upload session is gone");
          at = st;
        }
        first = false;
        const times = timesOf(spec);
        try {
          const item = await uploadThroughSession(client, t, {
            path,
            conflict: "fail",
            ...(times ? { times } : {}),
            source: held ? replay(held) : bodyOf(await open()),
            total,
            session: url,
            received: at,
            fragmentBytes: deps.fragmentBytes,
            // A download is piped, fragment by fragment; held bytes (unknown length) are sent.
            piped: held === null,
            beforeFragment: control.checkLease,
            ...(control.signal ? { signal: control.signal } : {}),
          });
          return { item };
        } catch (err) {
          // The file was removed: not retried here, the item is sent again from the start.
          if (err instanceof ProviderError && err.code === "quickxor_mismatch") return { err };
          if (isConflict(err)) return { conflict: true };
          if (err instanceof ProviderError && err.code === "session_gone")
            throw new UploadSessionGoneError("The OneDrive upload session is gone");
          throw err;
        }
      });
      if ("item" in out) return { path, item: out.item };
      await recorder.closed();
      if ("err" in out) throw out.err;
      return "conflict";
    }

    if (control.resume) {
      const ref = parseRef(control.resume.ref);
      const total = control.resume.total ?? declaredLength(source.download);
      if (!ref || total === null)
        throw new UploadSessionGoneError("The recorded OneDrive upload cannot be resumed");
      const done = await throughSession(ref.path, ref.url, total, control.resume.received, null);
      // The name was taken meanwhile: started over, the new file gets a free name.
      if (done === "conflict") throw new UploadSessionGoneError("The OneDrive name was taken");
      return done;
    }

    const declared = declaredLength(source.download);
    const signal = control.signal;
    if (declared !== null && declared <= MAX_SIMPLE_UPLOAD) {
      // Known length: piped from the download, a fresh one for each try.
      return putSmall(
        spec,
        declared,
        async () => {
          const { reader, read } = cdnReader(await open());
          async function* pieces(): AsyncGenerator<Uint8Array> {
            for (let r = await read(); !r.done; r = await read()) yield r.value;
          }
          return { pieces: pieces(), cancel: () => reader.cancel().catch(() => {}) };
        },
        signal,
      );
    }
    let held: Uint8Array[] | null = null;
    let total: number;
    if (declared === null) {
      const limit = deps.unknownLengthLimit;
      const read = await readUpTo(await open(), limit, () => lengthRequired(limit));
      held = read.held;
      total = read.total;
      if (total <= MAX_SIMPLE_UPLOAD) {
        // Sent from the pieces as read (no copy into one buffer).
        const pieces = held;
        const replayed = async () => ({ pieces: replay(pieces), cancel: async () => {} });
        return putSmall(spec, total, replayed, signal);
      }
    } else total = declared;

    const size = total;
    const contentHash = async () => {
      const h = new QuickXorHasher();
      for await (const piece of held ? replay(held) : bodyOf(await open())) h.update(piece);
      if (h.length !== size) throw lengthChanged("The media's length changed");
      return h.digest();
    };
    let known: string | null = null;
    const hashOnce = async () => {
      known ??= await contentHash();
      return known;
    };
    let vanished = 0;
    for (let n = 1; n <= MAX_NAMES; ) {
      const path = joinPath(spec.folderId, suffixed(spec.name, n));
      let url: string;
      try {
        const times = timesOf(spec);
        url = await call((t) => client.createUploadSession(t, path, "fail", times));
      } catch (err) {
        if (!isConflict(err)) throw err;
        const same = await sameFile(path, size, hashOnce, spec);
        if (same === "absent" && ++vanished <= MAX_VANISHED) continue;
        if (same && same !== "absent") return same;
        n++;
        continue;
      }
      // Recorded before the first byte: a worker that dies now leaves a session to resume.
      await recorder.opened(refOf({ url, path }), size);
      const done = await throughSession(path, url, size, 0, held);
      if (done !== "conflict") return done;
      const same = await sameFile(path, size, hashOnce, spec);
      if (same === "absent" && ++vanished <= MAX_VANISHED) continue;
      if (same && same !== "absent") return same;
      n++;
    }
    throw new ProviderError("microsoft", "unknown", `OneDrive: too many files named ${spec.name}`);
  };
}
