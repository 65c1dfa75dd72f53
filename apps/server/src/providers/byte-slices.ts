/**
 * A download's pieces cut into runs of exact lengths without copying a byte: `take(n)` yields
 * the next `n` bytes (a piece that straddles the end is split, its rest kept for the next
 * take), `next()` one piece or null at the end, `rest()` what remains. `onRead` sees each piece
 * as it is read from the source (a hash on the way); `short()` is thrown when the source ends
 * inside a take; `close()` lets the source go. Upload requests of a known length (a Dropbox append, an S3 part) are piped from
 * these runs.
 */
export function byteSlices(
  source: AsyncIterable<Uint8Array>,
  options: { onRead?: (piece: Uint8Array) => void; short: () => Error },
) {
  const it = source[Symbol.asyncIterator]();
  let carry: Uint8Array | null = null;
  async function next(): Promise<Uint8Array | null> {
    if (carry) {
      const c = carry;
      carry = null;
      return c;
    }
    const r = await it.next();
    if (r.done) return null;
    options.onRead?.(r.value);
    return r.value;
  }
  async function* take(n: number): AsyncGenerator<Uint8Array> {
    let left = n;
    while (left > 0) {
      const piece = await next();
      if (!piece) throw options.short();
      if (piece.length > left) carry = piece.subarray(left);
      const run = piece.length > left ? piece.subarray(0, left) : piece;
      left -= run.length;
      yield run;
    }
  }
  async function* rest(): AsyncGenerator<Uint8Array> {
    for (let piece = await next(); piece; piece = await next()) yield piece;
  }
  const close = async () => {
    await it.return?.();
  };
  return { next, take, rest, close };
}
