/**
 * OneDrive's `quickXorHash`, fed piece by piece. Byte i is XORed into a 160-bit register at bit
 * (11·i) mod 160; the register wraps. Since that position depends only on i mod 160, each byte
 * is first XORed into one of 160 byte-wide columns, and the columns are placed into the
 * register once, at the end; the length (64-bit little-endian) is XORed into its last 8 bytes.
 * The answer is base64, as Graph gives it in `file.hashes.quickXorHash`.
 */
export class QuickXorHasher {
  private readonly columns = new Uint8Array(160);
  private total = 0;

  update(data: Uint8Array): this {
    const cols = this.columns;
    let c = this.total % 160;
    for (const byte of data) {
      cols[c] = (cols[c] as number) ^ byte;
      c = c === 159 ? 0 : c + 1;
    }
    this.total += data.length;
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
