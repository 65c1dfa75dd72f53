import { byteSlices } from "../byte-slices.ts";
import { ProviderError } from "../provider-error.ts";
import { DROPBOX_BLOCK, DropboxContentHasher } from "./content-hash.ts";
import {
  DROPBOX_MAX_SINGLE,
  type DropboxClient,
  type DropboxCommit,
  type DropboxFile,
  SessionOffsetError,
} from "./dropbox.client.ts";

/** Where an upload session stands: record it (the ledger) to resume after a cut or a restart. */
export interface DropboxSessionState {
  sessionId: string;
  /** Bytes Dropbox holds: a multiple of 4 MiB. */
  offset: number;
}

/** Appends per request by default: 8 MiB (two of Dropbox's 4 MiB blocks). */
export const DROPBOX_CHUNK = 2 * DROPBOX_BLOCK;
/**
 * Bytes per piped append for a wanted size (the engine's chunk): whole 4 MiB blocks, at least
 * `DROPBOX_CHUNK`, at most what one request may carry (150 MiB, so 148 MiB). Piped appends hold
 * nothing, so they can be as large as that.
 */
export const pipedAppendBytes = (wanted: number) =>
  Math.min(
    Math.max(DROPBOX_CHUNK, wanted - (wanted % DROPBOX_BLOCK)),
    DROPBOX_MAX_SINGLE - (DROPBOX_MAX_SINGLE % DROPBOX_BLOCK),
  );
/** Cuts recovered in a row (asking where the session stands) before the failure is the caller's. */
const RECOVERIES = 3;

export interface DropboxSessionUpload {
  commit: DropboxCommit;
  /** The media from its first byte (on resume too: every byte is hashed; held bytes are skipped). */
  source: AsyncIterable<Uint8Array>;
  /** A session recorded earlier (resume), or none (a new one is opened). */
  session?: DropboxSessionState | null;
  /**
   * Told the session before its first byte is sent, and again after each append: record it.
   * A session that is gone (expired, finished) is replaced by a new one, told here too.
   */
  onSession?: (state: DropboxSessionState) => Promise<void> | void;
  /**
   * Told the content hash once every byte was read, before the finish: answers the commit to
   * finish with instead of `commit` (another path when a different file is in the way), or an
   * existing file that already holds these bytes (answered as the upload's file; the session is
   * left to expire). Also the moment to record what the finish will write.
   */
  beforeFinish?: (
    state: DropboxSessionState,
    contentHash: string,
  ) => Promise<DropboxCommit | DropboxFile | undefined> | DropboxCommit | DropboxFile | undefined;
  /**
   * Bytes per append of media of unknown length, a multiple of 4 MiB (default 8 MiB): one such
   * chunk is held at a time.
   */
  chunkBytes?: number;
  /**
   * Where each chunk of media of unknown length is gathered (at least `chunkBytes` long, reused
   * chunk after chunk): the pieces read are copied in, so none outlives its read (held pieces
   * would live long enough to be promoted and freed only by a full GC). Without it the pieces
   * themselves are held. A function is asked for it when the first byte is to be gathered.
   */
  buffer?: Uint8Array | (() => Uint8Array);
  /**
   * The media's length, when known: every byte is then piped from `source` into appends of
   * `pipeBytes` as it is read, the last one shorter, and the finish carries none, so nothing is
   * held. Bytes sent are not kept, so an append cut short that Dropbox did not take is thrown:
   * the caller reads the media again and resumes from the offset Dropbox holds.
   */
  length?: number;
  /** Bytes per piped append (media of known length), a multiple of 4 MiB; `chunkBytes` unless told. */
  pipeBytes?: number;
  signal?: AbortSignal;
}

const isCut = (err: unknown) =>
  err instanceof ProviderError && (err.kind === "network" || err.kind === "transient");

export const hashMismatch = () =>
  new ProviderError(
    "dropbox",
    "transient",
    "The file in Dropbox does not match what was sent (content_hash); uploading again",
    { code: "content_hash_mismatch" },
  );

/**
 * An upload through an upload session: the session recorded before the first byte, appends of
 * `chunkBytes` (`pipeBytes` when piped; 4 MiB multiples), and the content hash computed on the
 * way and compared at finish (a file whose hash differs is removed in `add` mode and the upload
 * fails as transient, to be sent again). After a cut, the session's offset is asked
 * (`incorrect_offset` answers it) and the upload goes on from there: an append whose answer was
 * lost is not sent twice. Throttling, a full Dropbox and a refused token are thrown as
 * classified (retry with the recorded session: the source is read again from its start).
 */
export async function uploadThroughSession(
  client: DropboxClient,
  token: string,
  p: DropboxSessionUpload,
): Promise<DropboxFile> {
  const chunkBytes = p.chunkBytes ?? DROPBOX_CHUNK;
  const pipeBytes = p.pipeBytes ?? chunkBytes;
  for (const n of [chunkBytes, pipeBytes])
    if (n <= 0 || n % DROPBOX_BLOCK !== 0)
      throw new Error("Dropbox appends are multiples of 4 MiB");
  let state = await openOrResume(client, token, p.session ?? null);
  await p.onSession?.(state);
  const hasher = new DropboxContentHasher();
  // Of known length every byte is piped into appends; else the last part goes with the finish.
  let last: Uint8Array[] = [];
  if (p.length !== undefined)
    state = await pipeAll(client, token, p, state, p.length, pipeBytes, hasher);
  else ({ state, last } = await gatherChunks(client, token, p, state, chunkBytes, hasher));
  const expected = hasher.digest();
  const chosen = await p.beforeFinish?.(state, expected);
  if (chosen && "id" in chosen) return chosen;
  const commit = chosen ?? p.commit;
  const file = await finishRecovering(client, token, state, commit, expected, last, p.signal);
  if (file.contentHash !== null && file.contentHash !== expected) {
    if (commit.mode === "add") await client.remove(token, file.id);
    throw hashMismatch();
  }
  return file;
}

/**
 * Media of unknown length: gathered chunk by chunk (in `p.buffer` when given) and appended as
 * each fills, after skipping what Dropbox holds. Answers where the session stands and the last,
 * shorter part, which the finish carries.
 */
async function gatherChunks(
  client: DropboxClient,
  token: string,
  p: DropboxSessionUpload,
  start: DropboxSessionState,
  chunkBytes: number,
  hasher: DropboxContentHasher,
): Promise<{ state: DropboxSessionState; last: Uint8Array[] }> {
  let taken = typeof p.buffer === "function" ? null : (p.buffer ?? null);
  const bufferOf = () => {
    if (!taken && typeof p.buffer === "function") taken = p.buffer();
    if (taken && taken.length < chunkBytes) throw new Error("The chunk buffer is too short");
    return taken;
  };
  if (taken) bufferOf(); // a buffer given is checked now; a function is asked when needed
  let state = start;
  let position = 0;
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  const gathered = () => (taken ? [taken.subarray(0, heldBytes)] : held);
  for await (const piece of p.source) {
    hasher.update(piece);
    const from = position;
    position += piece.length;
    if (position <= state.offset) continue; // Dropbox holds these bytes already.
    let rest = from < state.offset ? piece.subarray(state.offset - from) : piece;
    while (rest.length > 0) {
      const take = Math.min(chunkBytes - heldBytes, rest.length);
      const buffer = bufferOf();
      if (buffer) buffer.set(rest.subarray(0, take), heldBytes);
      else held.push(rest.subarray(0, take));
      heldBytes += take;
      rest = rest.subarray(take);
      if (heldBytes === chunkBytes) {
        state = await appendRecovering(client, token, state, gathered(), heldBytes, p.signal);
        await p.onSession?.(state);
        held = [];
        heldBytes = 0;
      }
    }
  }
  if (position < state.offset)
    throw new ProviderError("dropbox", "unknown", "The upload session holds more than the media");
  return { state, last: gathered() };
}

/**
 * Media of known length (`total`): skips what Dropbox holds, then pipes every other byte as
 * it is read (hashed on the way) into appends of `pipeBytes`, the last one shorter (a
 * sequential session takes any length). Answers where the session stands: at the end.
 */
async function pipeAll(
  client: DropboxClient,
  token: string,
  p: DropboxSessionUpload,
  start: DropboxSessionState,
  total: number,
  pipeBytes: number,
  hasher: DropboxContentHasher,
): Promise<DropboxSessionState> {
  const slices = byteSlices(p.source, {
    onRead: (piece) => hasher.update(piece),
    short: () => new ProviderError("dropbox", "unknown", "The media ended before its length"),
  });
  if (start.offset > total)
    throw new ProviderError("dropbox", "unknown", "The upload session holds more than the media");
  for await (const _ of slices.take(start.offset)) {
    // Dropbox holds these bytes already: read for the hash only.
  }
  let state = start;
  while (state.offset < total) {
    const length = Math.min(pipeBytes, total - state.offset);
    const after = { sessionId: state.sessionId, offset: state.offset + length };
    const body = { stream: slices.take(length), length };
    try {
      await client.append(token, state.sessionId, state.offset, body, p.signal);
    } catch (err) {
      if (!(err instanceof SessionOffsetError && err.offset === after.offset)) {
        if (!isCut(err)) throw err;
        // The bytes sent are not kept: only an append that arrived (its answer lost) goes on.
        const held = await client.sessionOffset(token, state.sessionId, state.offset);
        if (held !== after.offset) throw err;
      }
    }
    state = after;
    await p.onSession?.(state);
  }
  if (await slices.next())
    throw new ProviderError("dropbox", "unknown", "The media is longer than its length");
  return state;
}

async function openOrResume(
  client: DropboxClient,
  token: string,
  session: DropboxSessionState | null,
): Promise<DropboxSessionState> {
  if (session) {
    const offset = await client.sessionOffset(token, session.sessionId, session.offset);
    if (offset !== null) return { sessionId: session.sessionId, offset };
  }
  return { sessionId: await client.startSession(token), offset: 0 };
}

/** One append; after a cut, the session's offset decides whether it is sent again. */
async function appendRecovering(
  client: DropboxClient,
  token: string,
  state: DropboxSessionState,
  parts: Uint8Array[],
  length: number,
  signal?: AbortSignal,
): Promise<DropboxSessionState> {
  const after = { sessionId: state.sessionId, offset: state.offset + length };
  for (let attempt = 0; ; attempt++) {
    try {
      await client.append(token, state.sessionId, state.offset, parts, signal);
      return after;
    } catch (err) {
      if (err instanceof SessionOffsetError && err.offset === after.offset) return after;
      if (!isCut(err) || attempt + 1 >= RECOVERIES) throw err;
      const held = await client.sessionOffset(token, state.sessionId, state.offset);
      if (held === after.offset) return after; // It arrived; its answer was lost.
      if (held !== state.offset) throw err;
    }
  }
}

/** The finish; after a cut, a file already committed with our hash is the answer. */
async function finishRecovering(
  client: DropboxClient,
  token: string,
  state: DropboxSessionState,
  commit: DropboxCommit,
  expected: string,
  parts: Uint8Array[],
  signal?: AbortSignal,
): Promise<DropboxFile> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.finish(token, state.sessionId, state.offset, commit, parts, signal);
    } catch (err) {
      if (!isCut(err) || attempt + 1 >= RECOVERIES) throw err;
      if (err instanceof ProviderError && err.code === "content_hash_mismatch") throw err;
      const there = await client.getMetadata(token, commit.path);
      if (there?.file?.contentHash === expected) return there.file;
      const held = await client.sessionOffset(token, state.sessionId, state.offset);
      if (held !== state.offset) throw err;
    }
  }
}
