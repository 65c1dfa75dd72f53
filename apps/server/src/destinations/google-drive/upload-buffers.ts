/** The uploader's plumbing: pending bytes, wake-ups between its reader and sender, pooled buffers. */

/** Bytes read from the CDN and not yet acknowledged by Drive, kept as the pieces they came in. */
export class Pending {
  parts: Uint8Array[] = [];
  length = 0;
  push(p: Uint8Array) {
    if (p.length === 0) return;
    this.parts.push(p);
    this.length += p.length;
  }
  /** Views of the first `n` bytes (no copy). */
  head(n: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    let left = n;
    for (const p of this.parts) {
      if (left <= 0) break;
      out.push(p.length <= left ? p : p.subarray(0, left));
      left -= Math.min(p.length, left);
    }
    return out;
  }
  drop(n: number) {
    this.length -= n;
    while (n > 0 && this.parts.length > 0) {
      const p = this.parts[0] as Uint8Array;
      if (p.length <= n) {
        n -= p.length;
        this.parts.shift();
      } else {
        this.parts[0] = p.subarray(n);
        n = 0;
      }
    }
  }
}

/** A wake-up one side fires and the other awaits (checked in a loop, so none is lost). */
export function wakeUp() {
  let fire!: () => void;
  let next = new Promise<void>((r) => {
    fire = r;
  });
  return {
    wait: () => next,
    fire() {
      fire();
      next = new Promise<void>((r) => {
        fire = r;
      });
    },
  };
}

/**
 * The buffers small files of unknown length are read into and sent from, reused: at most
 * `count` exist (made when first needed), so the memory such uploads hold is bounded whatever
 * their number. Small files of known length are piped instead and need none (`pipeSmall`).
 */
export function bufferPool(size: number, count: number) {
  const free: Buffer[] = [];
  const waiting: (() => void)[] = [];
  let made = 0;
  return {
    async take(): Promise<Buffer> {
      for (;;) {
        const b = free.pop();
        if (b) return b;
        if (made < count) {
          made++;
          return Buffer.allocUnsafeSlow(size);
        }
        await new Promise<void>((r) => waiting.push(r));
      }
    },
    give(b: Buffer) {
      free.push(b);
      waiting.shift()?.();
    },
  };
}
