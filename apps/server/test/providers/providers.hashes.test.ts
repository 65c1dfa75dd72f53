import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  DROPBOX_BLOCK,
  DropboxContentHasher,
  dropboxContentHash,
} from "../../src/providers/dropbox/content-hash.ts";
import { QuickXorHasher, quickXorHash } from "../../src/providers/microsoft/quickxor.ts";
import { bytes } from "../support/destinations.ts";

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest();

/** Feeds `data` in pieces of uneven sizes, as a download arrives. */
function uneven<T extends { update(d: Uint8Array): unknown; digest(): string }>(
  h: T,
  data: Buffer,
) {
  const sizes = [1, 7, 1000, 65_536, 3, DROPBOX_BLOCK - 1, 2, 160, 159];
  for (let at = 0, i = 0; at < data.length; i++) {
    const n = sizes[i % sizes.length] as number;
    h.update(data.subarray(at, at + n));
    at += n;
  }
  return h.digest();
}

describe("Dropbox content_hash", () => {
  it("is the SHA-256 of each 4 MiB block's SHA-256, fed in any pieces", () => {
    expect(dropboxContentHash(new Uint8Array(0))).toBe(sha256(new Uint8Array(0)).toString("hex"));
    const small = bytes(1000);
    expect(dropboxContentHash(small)).toBe(sha256(sha256(small)).toString("hex"));
    const data = bytes(2 * DROPBOX_BLOCK + 12_345);
    const blocks = [0, 1, 2].map((i) =>
      sha256(data.subarray(i * DROPBOX_BLOCK, (i + 1) * DROPBOX_BLOCK)),
    );
    const expected = sha256(Buffer.concat(blocks)).toString("hex");
    expect(dropboxContentHash(data)).toBe(expected);
    expect(uneven(new DropboxContentHasher(), data)).toBe(expected);
  });
});

describe("OneDrive quickXorHash", () => {
  it("matches published vectors, and the same fed in any pieces", () => {
    // Published test vectors (input base64 → hash), as OneDrive computes them.
    const vectors = [
      ["", "AAAAAAAAAAAAAAAAAAAAAAAAAAA="],
      ["Sg==", "SgAAAAAAAAAAAAAAAQAAAAAAAAA="],
      ["0pZP", "0rDEEwAAAAAAAAAAAwAAAAAAAAA="],
      ["eAV52qE=", "eChAHrQRCgAAAAAABQAAAAAAAAA="],
      ["qaApEj66lw==", "qQBFCiTgA11cAgAABwAAAAAAAAA="],
    ];
    for (const [input, hash] of vectors)
      expect(quickXorHash(Buffer.from(input!, "base64"))).toBe(hash);
    const data = bytes(300_001, 11);
    expect(uneven(new QuickXorHasher(), data)).toBe(quickXorHash(data));
    expect(quickXorHash(data)).not.toBe(quickXorHash(bytes(300_001, 12)));
  });
});
