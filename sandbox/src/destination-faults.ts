/** Upload faults of the Dropbox and OneDrive emulators (`/_control/{dropbox,onedrive}/cut|corrupt`). */
import { closeSync, existsSync, ftruncateSync, openSync, writeSync } from "node:fs";
import type { Ctx } from "./context.ts";

/**
 * A cut of an upload request: the connection drops once `afterBytes` of its body arrived (what
 * arrived is kept as the provider keeps it), or, with `loseAnswer`, after the request was
 * handled in full (the data is stored, the answer never comes).
 */
export interface DestinationCut {
  afterBytes: number;
  remaining: number;
  loseAnswer: boolean;
}

export interface DestinationFaults {
  cuts: DestinationCut[];
  /** Commits still to store with a flipped first byte (the hash then differs from what was sent). */
  corrupt: number;
}

/** Uses up one of a cut's uses. */
function spend(faults: DestinationFaults, cut: DestinationCut): void {
  cut.remaining--;
  if (cut.remaining <= 0) faults.cuts.splice(faults.cuts.indexOf(cut), 1);
}

/** Flips the first byte of `data` when a corrupted commit was asked for. */
export function corruptCommit(faults: DestinationFaults, data: Buffer): Buffer {
  if (faults.corrupt <= 0 || data.length === 0) return data;
  faults.corrupt--;
  const out = Buffer.from(data);
  out[0] = (out[0] as number) ^ 0xff;
  return out;
}

const noDestinationFaults = (): Record<"dropbox" | "onedrive", DestinationFaults> => ({
  dropbox: { cuts: [], corrupt: 0 },
  onedrive: { cuts: [], corrupt: 0 },
});

const byCtx = new WeakMap<Ctx, Record<"dropbox" | "onedrive", DestinationFaults>>();

/** A sandbox's pending Dropbox or OneDrive faults (cleared by a reset: `clearDestinationFaults`). */
export function destinationFaults(ctx: Ctx, provider: "dropbox" | "onedrive"): DestinationFaults {
  let faults = byCtx.get(ctx);
  if (!faults) {
    faults = noDestinationFaults();
    byCtx.set(ctx, faults);
  }
  return faults[provider];
}

export function clearDestinationFaults(ctx: Ctx): void {
  byCtx.delete(ctx);
}

/**
 * Writes an upload request's body into the file `path` as it arrives (never held whole: what
 * the emulator costs follows the bytes, not how a client splits them into requests), at
 * `at` (the bytes before it are kept; the file is created when missing), each piece also given
 * to `onPiece` (a hash on the way). Under the first pending cut, which applies once a body
 * reaches its `afterBytes`: `"mid"` stops there, with the bytes that arrived before it written
 * (the caller keeps what its provider keeps and drops the connection); `"answer"` (a
 * `loseAnswer` cut) with the whole body, which the caller stores before it drops the connection
 * instead of answering. A body over `limit` throws `tooLarge()`; whatever throws leaves the file
 * cut back to `at`.
 */
export async function receiveBodyCut(
  raw: AsyncIterable<unknown>,
  into: { path: string; at: number; onPiece?: (piece: Buffer) => void },
  limit: number,
  tooLarge: () => Error,
  faults: DestinationFaults,
): Promise<{ size: number; cut: "mid" | "answer" | null }> {
  const cut = faults.cuts.find((c) => c.remaining > 0);
  const stopAt = cut && !cut.loseAnswer ? cut.afterBytes : Number.POSITIVE_INFINITY;
  const fd = openSync(into.path, existsSync(into.path) ? "r+" : "w");
  let size = 0;
  const write = (piece: Buffer) => {
    into.onPiece?.(piece);
    writeSync(fd, piece, 0, piece.length, into.at + size);
    size += piece.length;
  };
  try {
    ftruncateSync(fd, into.at);
    for await (const chunk of raw) {
      const buf = chunk as Buffer;
      if (cut && size + buf.length > stopAt) {
        spend(faults, cut);
        write(buf.subarray(0, stopAt - size));
        return { size, cut: "mid" };
      }
      if (size + buf.length > limit) throw tooLarge();
      write(buf);
    }
  } catch (err) {
    // Refused or broken off: nothing of this body stays.
    ftruncateSync(fd, into.at);
    throw err;
  } finally {
    closeSync(fd);
  }
  if (cut?.loseAnswer && size >= cut.afterBytes) {
    spend(faults, cut);
    return { size, cut: "answer" };
  }
  return { size, cut: null };
}
