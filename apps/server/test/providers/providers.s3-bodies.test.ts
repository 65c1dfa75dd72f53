import { describe, expect, it } from "vitest";
import { givePart, takePart } from "../../src/providers/s3/s3-bodies.ts";

/** Part buffers: reused once given back, never handed to two parts at once. */
describe("S3 part buffers", () => {
  const size = 64 * 1024 + 7; // a size no other test uses: this test's buffers only

  it("a buffer given back serves the next part; none is handed out twice", () => {
    const a = takePart(size);
    const b = takePart(size);
    expect(a.length).toBe(size);
    expect(a.buffer).not.toBe(b.buffer);
    givePart([a.subarray(0, 10)]);
    givePart([a]); // given back twice: still one free buffer
    const c = takePart(size);
    expect(c.buffer).toBe(a.buffer);
    expect(takePart(size).buffer).not.toBe(a.buffer);
    givePart([b]);
    givePart([c]);
  });

  it("only its own buffers are kept, and at most three", () => {
    const other = Buffer.alloc(size);
    givePart([other]);
    expect(takePart(size).buffer).not.toBe(other.buffer);
    // Pieces (several views) are not a part buffer.
    const mine = takePart(size);
    givePart([mine.subarray(0, 5), mine.subarray(5)]);
    expect(takePart(size).buffer).not.toBe(mine.buffer);

    const four = [takePart(size), takePart(size), takePart(size), takePart(size)];
    for (const b of four) givePart([b]);
    const again = [takePart(size), takePart(size), takePart(size), takePart(size)];
    const reused = again.filter((b) => four.some((f) => f.buffer === b.buffer));
    expect(reused).toHaveLength(3);
    expect(four.some((f) => f.buffer === again[3]?.buffer)).toBe(false);
  });
});
