import { describe, expect, it } from "vitest";
import { byteSlices } from "../../src/providers/byte-slices.ts";

async function* pieces(data: Buffer, size: number) {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}
const all = async (runs: AsyncIterable<Uint8Array>) => {
  const out: Uint8Array[] = [];
  for await (const r of runs) out.push(r);
  return Buffer.concat(out);
};

describe("byteSlices: a download cut into runs of exact lengths", () => {
  it("splits pieces that straddle a run's end, keeps their rest for the next, and copies nothing", async () => {
    const data = Buffer.from("abcdefghijklmnopq");
    const read: string[] = [];
    const s = byteSlices(pieces(data, 3), {
      onRead: (p) => read.push(Buffer.from(p).toString()),
      short: () => new Error("short"),
    });
    const firstRuns: Uint8Array[] = [];
    for await (const r of s.take(4)) firstRuns.push(r);
    expect(firstRuns.map((r) => Buffer.from(r).toString())).toEqual(["abc", "d"]);
    expect(firstRuns[0]?.buffer).toBe(data.buffer); // views of the pieces, not copies
    expect((await all(s.take(7))).toString()).toBe("efghijk");
    expect((await all(s.rest())).toString()).toBe("lmnopq");
    expect(await s.next()).toBeNull();
    // Each piece is seen once as read, whatever the runs made of it.
    expect(read).toEqual(["abc", "def", "ghi", "jkl", "mno", "pq"]);
  });

  it("a source that ends inside a run throws the given error", async () => {
    const s = byteSlices(pieces(Buffer.from("abcde"), 2), { short: () => new Error("cut short") });
    await expect(all(s.take(6))).rejects.toThrow("cut short");
  });
});
