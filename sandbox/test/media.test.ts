import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { jpeg } from "../src/images.ts";
import { DEMO_IG } from "../src/index.ts";
import { mp4Bytes, mp4Layout } from "../src/mp4.ts";
import { harness, igLongToken } from "./helpers.ts";

async function collect(gen: AsyncGenerator<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of gen) parts.push(p);
  return Buffer.concat(parts);
}

function boxes(buf: Buffer): { type: string; size: number }[] {
  const out: { type: string; size: number }[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const size = buf.readUInt32BE(pos);
    out.push({ type: buf.subarray(pos + 4, pos + 8).toString("latin1"), size });
    if (size < 8) throw new Error("bad box");
    pos += size;
  }
  expect(pos).toBe(buf.length);
  return out;
}

describe("generated media", () => {
  it("MP4s have exact sizes and a valid ftyp/moov/mdat layout", async () => {
    for (const bytes of [5000, 300_000, 2_345_678]) {
      const spec = { bytes, aspectW: 9, aspectH: 16, seed: 42 };
      const file = await collect(mp4Bytes(spec));
      expect(file.length).toBe(bytes);
      const types = boxes(file).map((b) => b.type);
      expect(types.slice(0, 3)).toEqual(["ftyp", "moov", "mdat"]);
      expect(types.slice(3).every((t) => t === "free")).toBe(true);
      const layout = mp4Layout(spec);
      expect(layout.frames).toBeGreaterThan(0);
      expect(file.includes(Buffer.from("avcC"))).toBe(true);
    }
  });

  it("any byte range equals the same slice of the whole file", async () => {
    const spec = { bytes: 1_500_000, aspectW: 16, aspectH: 9, seed: 7 };
    const whole = await collect(mp4Bytes(spec));
    for (const [a, b] of [
      [0, 99],
      [1000, 400_000],
      [1_499_000, 1_499_999],
    ] as const) {
      expect(await collect(mp4Bytes(spec, a, b))).toEqual(whole.subarray(a, b + 1));
    }
  });

  it("JPEGs are deterministic", async () => {
    const a = await jpeg(640, 800, 99);
    const b = await jpeg(640, 800, 99);
    expect(a.equals(b)).toBe(true);
    expect(a.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it("bytes are identical in a separate process (stable across restarts)", async () => {
    const src = fileURLToPath(new URL("../src/", import.meta.url));
    const script = `
      const { jpeg } = await import(${JSON.stringify(`${src}images.ts`)});
      const { mp4Bytes } = await import(${JSON.stringify(`${src}mp4.ts`)});
      const { createHash } = await import("node:crypto");
      const parts = [];
      for await (const p of mp4Bytes({ bytes: 500000, aspectW: 9, aspectH: 16, seed: 5 })) parts.push(p);
      const md5 = (b) => createHash("md5").update(b).digest("hex");
      console.log(JSON.stringify([md5(await jpeg(1080, 1350, 77)), md5(Buffer.concat(parts))]));`;
    // A directory of its own: the child renders, rather than reading what this process kept.
    const own = mkdtempSync(join(tmpdir(), "ks-img-"));
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, SANDBOX_IMAGE_CACHE_DIR: own },
    });
    rmSync(own, { recursive: true, force: true });
    expect(child.status).toBe(0);
    const md5 = (b: Buffer) => createHash("md5").update(b).digest("hex");
    const here = [
      md5(await jpeg(1080, 1350, 77)),
      md5(await collect(mp4Bytes({ bytes: 500000, aspectW: 9, aspectH: 16, seed: 5 }))),
    ];
    expect(JSON.parse(child.stdout.trim())).toEqual(here);
  });

  it("keeps a rendered JPEG on disk, named after its inputs, and serves it from there", () => {
    const dir = mkdtempSync(join(tmpdir(), "ks-img-"));
    const src = fileURLToPath(new URL("../src/images.ts", import.meta.url));
    const render = (seed: number) => {
      const script = `
        const { jpeg } = await import(${JSON.stringify(src)});
        process.stdout.write((await jpeg(320, 400, ${seed})).toString("base64"));`;
      const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        encoding: "utf8",
        env: { ...process.env, SANDBOX_IMAGE_CACHE_DIR: dir },
      });
      expect(child.status, child.stderr).toBe(0);
      return Buffer.from(child.stdout, "base64");
    };
    const first = render(4242);
    const kept = readdirSync(dir);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/^[0-9a-f]{64}\.jpg$/);
    expect(readFileSync(join(dir, kept[0] as string)).equals(first)).toBe(true);
    // Another process is answered from the file, not by rendering again.
    const marked = Buffer.concat([first.subarray(0, 2), Buffer.from("kept on disk")]);
    writeFileSync(join(dir, kept[0] as string), marked);
    expect(render(4242).equals(marked)).toBe(true);
    // Other inputs, another file.
    expect(render(4243).equals(first)).toBe(false);
    expect(readdirSync(dir)).toHaveLength(2);
    rmSync(dir, { recursive: true, force: true });
  });

  it("streams the configurable large video from the CDN", async () => {
    const large = 40 * 1024 * 1024;
    const h = await harness({ largeVideoBytes: large });
    try {
      const token = await igLongToken(h, DEMO_IG.business.id);
      const { media } = await h.ctl<{ media: { id: string; video_bytes: number | null }[] }>(
        `instagram/${DEMO_IG.business.username}/media`,
      );
      const big = media.find((m) => m.video_bytes === large)!;
      expect(big).toBeDefined();
      const item = (await (
        await h.get(`/graph.instagram.com/v25.0/${big.id}?fields=media_url&access_token=${token}`)
      ).json()) as { media_url: string };
      const res = await fetch(item.media_url);
      expect(res.headers.get("content-length")).toBe(String(large));
      const hash = createHash("md5");
      let n = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        hash.update(chunk);
        n += chunk.length;
      }
      expect(n).toBe(large);
      const tail = await fetch(item.media_url, { headers: { range: `bytes=${large - 10}-` } });
      expect(tail.status).toBe(206);
      expect((await tail.arrayBuffer()).byteLength).toBe(10);
      const whole = hash.digest("hex");
      expect(whole).toMatch(/^[0-9a-f]{32}$/);

      // Unsized: the same bytes, streamed without a Content-Length.
      await h.ctl("cdn/unsized", { on: true });
      const unsized = await fetch(item.media_url);
      expect(unsized.headers.get("content-length")).toBeNull();
      expect(unsized.headers.get("transfer-encoding")).toBe("chunked");
      const again = createHash("md5");
      for await (const chunk of unsized.body as unknown as AsyncIterable<Uint8Array>)
        again.update(chunk);
      expect(again.digest("hex")).toBe(whole);
    } finally {
      await h.sb.close();
    }
  });
});
