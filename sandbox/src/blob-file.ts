import { closeSync, existsSync, ftruncateSync, openSync, writeSync } from "node:fs";

/**
 * Writes a request body's pieces into the file `path` as they arrive (never held whole: what an
 * emulator costs follows the bytes, not how a client splits them into requests), from offset
 * `at` (the bytes before it are kept; the file is created when missing), each piece also given
 * to `onPiece` (a hash on the way). Answers the bytes written; whatever the pieces throw (a
 * refusal, a broken-off body) leaves the file cut back to `at` and is thrown on.
 */
export async function writePieces(
  pieces: AsyncIterable<Buffer>,
  into: { path: string; at: number; onPiece?: (piece: Buffer) => void },
): Promise<number> {
  const fd = openSync(into.path, existsSync(into.path) ? "r+" : "w");
  let size = 0;
  try {
    ftruncateSync(fd, into.at);
    for await (const piece of pieces) {
      into.onPiece?.(piece);
      writeSync(fd, piece, 0, piece.length, into.at + size);
      size += piece.length;
    }
    return size;
  } catch (err) {
    ftruncateSync(fd, into.at);
    throw err;
  } finally {
    closeSync(fd);
  }
}
