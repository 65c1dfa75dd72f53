/**
 * Microsoft's QuickXorHash (OneDrive's `quickXorHash`): each byte is XORed into a 160-bit ring
 * 11 bits after the one before; the length, little-endian, is XORed into the last 8 bytes.
 * Byte j lands at bit (11·j) mod 160, which depends only on j mod 160, so the bytes are first
 * folded into 160 lanes and each lane placed once at the end.
 */
export class QuickXorHash {
  private readonly lanes = new Uint8Array(160);
  private length = 0;

  update(data: Uint8Array): this {
    let lane = this.length % 160;
    for (let i = 0; i < data.length; i++) {
      this.lanes[lane] = (this.lanes[lane] as number) ^ (data[i] as number);
      lane = lane === 159 ? 0 : lane + 1;
    }
    this.length += data.length;
    return this;
  }

  digest(): Buffer {
    const out = Buffer.alloc(20);
    for (let k = 0; k < 160; k++) {
      const v = this.lanes[k] as number;
      if (v === 0) continue;
      const offset = (11 * k) % 160;
      for (let bit = 0; bit < 8; bit++) {
        if (((v >> bit) & 1) === 0) continue;
        const at = (offset + bit) % 160;
        out[at >> 3] = (out[at >> 3] as number) ^ (1 << (at & 7));
      }
    }
    let n = BigInt(this.length);
    for (let i = 0; i < 8; i++) {
      out[12 + i] = (out[12 + i] as number) ^ Number(n & 0xffn);
      n >>= 8n;
    }
    return out;
  }

  base64(): string {
    return this.digest().toString("base64");
  }
}

export const quickXorHash = (data: Uint8Array) => new QuickXorHash().update(data).base64();
