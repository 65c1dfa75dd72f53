import { createHash, type Hash } from "node:crypto";

/** Dropbox hashes content in blocks of 4 MiB; upload-session appends are multiples of it. */
export const DROPBOX_BLOCK = 4 * 1024 * 1024;

/**
 * Dropbox's `content_hash`, fed piece by piece: the SHA-256 of the concatenated SHA-256 of each
 * 4 MiB block (the last may be shorter), hex. Holds one block's hash state, never its bytes.
 */
export class DropboxContentHasher {
  private readonly overall = createHash("sha256");
  private block: Hash = createHash("sha256");
  private inBlock = 0;
  private total = 0;

  update(data: Uint8Array): this {
    let at = 0;
    while (at < data.length) {
      const take = Math.min(DROPBOX_BLOCK - this.inBlock, data.length - at);
      this.block.update(data.subarray(at, at + take));
      this.inBlock += take;
      at += take;
      if (this.inBlock === DROPBOX_BLOCK) this.closeBlock();
    }
    this.total += data.length;
    return this;
  }

  /** Bytes hashed so far. */
  get length(): number {
    return this.total;
  }

  private closeBlock() {
    this.overall.update(this.block.digest());
    this.block = createHash("sha256");
    this.inBlock = 0;
  }

  digest(): string {
    if (this.inBlock > 0) this.closeBlock();
    return this.overall.digest("hex");
  }
}

/** The content hash of bytes held whole, as one buffer or as its pieces in order. */
export function dropboxContentHash(data: Uint8Array | readonly Uint8Array[]): string {
  const hasher = new DropboxContentHasher();
  for (const piece of data instanceof Uint8Array ? [data] : data) hasher.update(piece);
  return hasher.digest();
}
