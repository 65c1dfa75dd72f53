/** Bytes XORed word by word per pass: a multiple of 160 (the columns) and of 4 (the words). */
const BLOCK = 160 * 512;
/** Aligned scratch the pieces are copied into (a memcpy) to be read as 32-bit words. */
const scratch = new Uint32Array(BLOCK / 4);
const scratchBytes = new Uint8Array(scratch.buffer);

/**
 * OneDrive's `quickXorHash`, fed piece by piece. Byte i is XORed into a 160-bit register at bit
 * (11·i) mod 160; the register wraps. Since that position depends only on i mod 160, each byte
 * is first XORed into one of 160 byte-wide columns, and the columns are placed into the
 * register once, at the end; the length (64-bit little-endian) is XORed into its last 8 bytes.
 * The columns are kept as 40 32-bit words: whole 160-byte rows are XORed in four bytes at a
 * time (the word view and the byte view share one buffer, so the host's byte order cancels
 * out). The answer is base64, as Graph gives it in `file.hashes.quickXorHash`.
 */
export class QuickXorHasher {
  private readonly words = new Uint32Array(40);
  private readonly columns = new Uint8Array(this.words.buffer);
  private total = 0;

  update(data: Uint8Array): this {
    const cols = this.columns;
    const words = this.words;
    const n = data.length;
    let c = this.total % 160;
    let i = 0;
    // Bytes up to the next row's start, one at a time.
    while (i < n && c !== 0) {
      cols[c] = (cols[c] as number) ^ (data[i++] as number);
      c = c === 159 ? 0 : c + 1;
    }
    // Whole rows, a word at a time, from an aligned copy.
    while (n - i >= 160) {
      const len = Math.min(BLOCK, n - i - ((n - i) % 160));
      scratchBytes.set(data.subarray(i, i + len));
      const count = len >> 2;
      for (let w = 0; w < count; w += 40) {
        for (let j = 0; j < 40; j++) words[j] = (words[j] as number) ^ (scratch[w + j] as number);
      }
      i += len;
    }
    // The rest of a row.
    while (i < n) {
      cols[c] = (cols[c] as number) ^ (data[i++] as number);
      c++;
    }
    this.total += n;
    return this;
  }

  get length(): number {
    return this.total;
  }

  digest(): string {
    const register = new Uint8Array(20);
    for (let c = 0; c < 160; c++) {
      const byte = this.columns[c] as number;
      const start = (c * 11) % 160;
      for (let b = 0; b < 8; b++) {
        if ((byte & (1 << b)) === 0) continue;
        const bit = (start + b) % 160;
        register[bit >> 3] = (register[bit >> 3] as number) ^ (1 << (bit & 7));
      }
    }
    let n = BigInt(this.total);
    for (let i = 12; i < 20; i++) {
      register[i] = (register[i] as number) ^ Number(n & 0xffn);
      n >>= 8n;
    }
    return Buffer.from(register).toString("base64");
  }
}

export const quickXorHash = (data: Uint8Array) => new QuickXorHasher().update(data).digest();
