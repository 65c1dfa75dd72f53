/** Upload faults of the Dropbox and OneDrive emulators (`/_control/{dropbox,onedrive}/cut|corrupt`). */
import { writePieces } from "./blob-file.ts";
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
 * Writes an upload request's body into `into` as it arrives (`writePieces`), under the first
 * pending cut, which applies once a body reaches its `afterBytes`: `"mid"` stops there, with
 * the bytes that arrived before it written (the caller keeps what its provider keeps and drops
 * the connection); `"answer"` (a `loseAnswer` cut) with the whole body, which the caller stores
 * before it drops the connection instead of answering. A body over `limit` throws
 * `tooLarge()`, nothing of it kept.
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
  let stopped = false;
  async function* pieces() {
    let size = 0;
    for await (const chunk of raw) {
      const buf = chunk as Buffer;
      if (cut && size + buf.length > stopAt) {
        stopped = true;
        spend(faults, cut);
        yield buf.subarray(0, stopAt - size);
        return;
      }
      size += buf.length;
      if (size > limit) throw tooLarge();
      yield buf;
    }
  }
  const size = await writePieces(pieces(), into);
  if (stopped) return { size, cut: "mid" };
  if (cut?.loseAnswer && size >= cut.afterBytes) {
    spend(faults, cut);
    return { size, cut: "answer" };
  }
  return { size, cut: null };
}
