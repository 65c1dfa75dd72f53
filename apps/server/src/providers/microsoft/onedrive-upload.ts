import { ProviderError } from "../provider-error.ts";
import {
  type Conflict,
  type DriveItem,
  type FileTimes,
  FRAGMENT_UNIT,
  MAX_FRAGMENT,
  type OneDriveClient,
  type RangeProgress,
} from "./onedrive.client.ts";
import { sendPiped } from "./onedrive-piped.ts";
import { QuickXorHasher } from "./quickxor.ts";

/** Bytes per range request by default: 32 × 320 KiB = 10 MiB (held, unless `piped`). */
export const ONEDRIVE_FRAGMENT = 32 * FRAGMENT_UNIT;
/** Cuts recovered in a row (asking the session's nextExpectedRanges) before the caller's turn. */
const RECOVERIES = 3;

export interface OneDriveSessionUpload {
  /** Below the app folder, e.g. `/Keepsake/@lumen.studio/2025/…jpg`. */
  path: string;
  conflict: Conflict;
  /** The post's time, as the file's `fileSystemInfo`. */
  times?: FileTimes;
  /** The media from its first byte (on resume too: every byte is hashed; held bytes are skipped). */
  source: AsyncIterable<Uint8Array>;
  /**
   * The media's length. Graph needs it before the first byte (in every Content-Range). When it
   * is unknown (null), up to `readAheadLimit` bytes are read ahead into memory to learn it; a
   * longer media is refused (permanent, `length_required`): media never rests on our disks.
   */
  total: number | null;
  /** 60 MiB by default: Graph's largest single request, the most held for an unknown length. */
  readAheadLimit?: number;
  /** An upload URL recorded earlier (resume), or none (a session is opened). */
  session?: string | null;
  /**
   * Where `session` stands (its next expected byte), when the caller has just asked: no status
   * request is then made. Without it a given session's status is asked first.
   */
  received?: number;
  /** Runs before each range request (and each retry of one): throws to stop (a lost claim). */
  beforeFragment?: () => void;
  /** Told the upload URL before its first byte is sent (a replacement too): record it. */
  onSession?: (uploadUrl: string) => Promise<void> | void;
  /** Bytes per range request, a multiple of 320 KiB under 60 MiB. */
  fragmentBytes?: number;
  /**
   * Each fragment's body is the source's next bytes as they arrive (nothing held): a cut is
   * thrown as it is, for the caller to ask where the session stands and read the media again.
   */
  piped?: boolean;
  signal?: AbortSignal;
}

const isCut = (err: unknown) =>
  err instanceof ProviderError && (err.kind === "network" || err.kind === "transient");

const transient = (message: string, code: string) =>
  new ProviderError("microsoft", "transient", message, { code });

/** What an unknown length costs: refused past the read-ahead, with the reason. */
export const lengthRequired = (limit: number) =>
  new ProviderError(
    "microsoft",
    "unknown",
    `OneDrive needs a file's size before its upload starts; this media's size was not given and it is over ${Math.round(limit / 1048576)} MiB, more than Keepsake holds in memory (media never rests on its servers)`,
    { code: "length_required" },
  );

/** Reads ahead to learn a length: the bytes and the total, or `lengthRequired`. */
async function readAhead(source: AsyncIterable<Uint8Array>, limit: number) {
  const held: Uint8Array[] = [];
  let total = 0;
  for await (const piece of source) {
    total += piece.length;
    if (total > limit) throw lengthRequired(limit);
    held.push(piece);
  }
  async function* replay() {
    yield* held;
  }
  return { total, source: replay() };
}

/** The parts of `held` from byte `from` on (no copy). */
function from(held: Uint8Array[], skip: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let left = skip;
  for (const p of held) {
    if (left >= p.length) {
      left -= p.length;
      continue;
    }
    out.push(left > 0 ? p.subarray(left) : p);
    left = 0;
  }
  return out;
}

/**
 * An upload through a Graph upload session: opened with the post's time and recorded before
 * the first byte, ranges of `fragmentBytes` (320 KiB multiples), and `quickXorHash` computed on
 * the way and compared with the item's (a mismatch removes a `fail`-mode item and fails as
 * transient, to be sent again). After a cut the session's `nextExpectedRanges` says where to go
 * on, so nothing is sent twice; a lost last answer is found by path. An empty file is one
 * simple upload and a PATCH of its times. Throttling (429/503), a full drive (507) and a refused
 * token are thrown as classified: retry with the recorded session.
 */
export async function uploadThroughSession(
  client: OneDriveClient,
  token: string,
  p: OneDriveSessionUpload,
): Promise<DriveItem> {
  const fragment = p.fragmentBytes ?? ONEDRIVE_FRAGMENT;
  if (fragment <= 0 || fragment % FRAGMENT_UNIT !== 0 || fragment > MAX_FRAGMENT)
    throw new Error("OneDrive fragments are multiples of 320 KiB, at most 60 MiB");
  let source = p.source;
  let total = p.total;
  if (total === null)
    ({ total, source } = await readAhead(source, p.readAheadLimit ?? MAX_FRAGMENT));
  if (total === 0) {
    const item = await client.putSmall(token, p.path, new Uint8Array(0), p.conflict);
    return p.times ? client.setTimes(token, item.id, p.times) : item;
  }
  const size = total;

  let session = p.session ?? null;
  let next: number | "gone" = "gone";
  if (session) next = p.received ?? (await client.sessionStatus(session));
  if (next === "gone" || !session) {
    session = await client.createUploadSession(token, p.path, p.conflict, p.times);
    next = 0;
  }
  const url = session;
  await p.onSession?.(url);
  let expected = next;

  /** Sends `held` (bytes `start …`) until the session holds them all; the item at the end. */
  async function sendFragment(held: Uint8Array[], start: number): Promise<DriveItem | null> {
    const end = start + held.reduce((n, x) => n + x.length, 0);
    let offset = start;
    for (let attempt = 0; ; ) {
      p.beforeFragment?.();
      let result: RangeProgress | "gone";
      try {
        result = await client.putRange(url, from(held, offset - start), offset, size, p.signal);
      } catch (err) {
        if (!isCut(err) || ++attempt >= RECOVERIES) throw err;
        const status = await client.sessionStatus(url);
        result = status === "gone" ? "gone" : { done: false, next: status };
      }
      if (result === "gone") {
        // A finished session is gone too: the last answer may have been lost on the way.
        const there = end === size ? await client.getByPath(token, p.path) : null;
        if (there && there.size === size) return there;
        throw transient("The OneDrive upload session is gone; starting again", "session_gone");
      }
      if (result.done) return result.item;
      if (result.next === end) return null;
      if (result.next < start || result.next > end)
        throw transient("OneDrive expects bytes this upload no longer holds", "unexpected_range");
      if (result.next === offset && ++attempt >= RECOVERIES)
        throw transient("OneDrive took none of the bytes sent", "no_progress");
      offset = result.next;
    }
  }

  const hasher = new QuickXorHasher();
  if (p.piped) {
    const item = await sendPiped(client, {
      url,
      source,
      size,
      expected,
      fragment,
      hasher,
      ...(p.beforeFragment ? { beforeFragment: p.beforeFragment } : {}),
      ...(p.signal ? { signal: p.signal } : {}),
    });
    return verified(client, token, p, item ?? (await client.getByPath(token, p.path)), hasher);
  }
  let position = 0;
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let item: DriveItem | null = null;
  for await (const piece of source) {
    hasher.update(piece);
    const start = position;
    position += piece.length;
    if (position > size) throw transient("The media is longer than announced", "length_changed");
    if (position <= expected) continue; // The session holds these bytes already.
    let rest = start < expected ? piece.subarray(expected - start) : piece;
    while (rest.length > 0) {
      const take = Math.min(fragment - heldBytes, rest.length);
      held.push(rest.subarray(0, take));
      heldBytes += take;
      rest = rest.subarray(take);
      if (heldBytes === fragment || expected + heldBytes === size) {
        item = await sendFragment(held, expected);
        expected += heldBytes;
        held = [];
        heldBytes = 0;
      }
    }
  }
  if (position !== size) throw transient("The media is shorter than announced", "length_changed");
  return verified(client, token, p, item ?? (await client.getByPath(token, p.path)), hasher);
}

/** The item, when its quickXorHash is that of the bytes sent (else removed, if ours). */
async function verified(
  client: OneDriveClient,
  token: string,
  p: OneDriveSessionUpload,
  item: DriveItem | null,
  hasher: QuickXorHasher,
): Promise<DriveItem> {
  if (!item) throw transient("OneDrive did not answer the uploaded file", "no_item");
  if (item.quickXorHash !== null && item.quickXorHash !== hasher.digest()) {
    if (p.conflict === "fail") await client.remove(token, item.id);
    throw transient(
      "The file in OneDrive does not match what was sent (quickXorHash); uploading again",
      "quickxor_mismatch",
    );
  }
  return item;
}
