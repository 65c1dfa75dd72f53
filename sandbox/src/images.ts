import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { Prng } from "./prng.ts";

const cache = new Map<string, Promise<Buffer>>();
const CACHE_MAX = 48;

const GRAIN = 128;

/** Deterministic film grain so JPEG sizes look like photos rather than flat vector art. */
function grain(seed: number): Buffer {
  const rng = new Prng(seed ^ 0x5eed);
  const buf = Buffer.alloc(GRAIN * GRAIN * 3);
  for (let i = 0; i < GRAIN * GRAIN; i++) {
    const v = 128 + Math.round((rng.next() - 0.5) * 90);
    buf[i * 3] = v;
    buf[i * 3 + 1] = v;
    buf[i * 3 + 2] = v;
  }
  return buf;
}

function color(rng: Prng): string {
  const h = rng.int(0, 359);
  const s = rng.int(45, 85);
  const l = rng.int(35, 70);
  return `hsl(${h},${s}%,${l}%)`;
}

function svg(width: number, height: number, seed: number): string {
  const rng = new Prng(seed);
  const shapes: string[] = [];
  const count = rng.int(4, 9);
  for (let i = 0; i < count; i++) {
    const r = rng.int(
      Math.round(Math.min(width, height) / 12),
      Math.round(Math.min(width, height) / 2.5),
    );
    const cx = rng.int(0, width);
    const cy = rng.int(0, height);
    const opacity = (rng.int(25, 70) / 100).toFixed(2);
    if (rng.chance(0.3)) {
      const angle = rng.int(0, 90);
      shapes.push(
        `<rect x="${cx - r}" y="${cy - r / 2}" width="${r * 2}" height="${r}" rx="${r / 6}" fill="${color(rng)}" fill-opacity="${opacity}" transform="rotate(${angle} ${cx} ${cy})"/>`,
      );
    } else {
      shapes.push(
        `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${color(rng)}" fill-opacity="${opacity}"/>`,
      );
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${color(rng)}"/><stop offset="1" stop-color="${color(rng)}"/></linearGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/>${shapes.join("")}</svg>`;
}

const QUALITY = 86;

/**
 * Rendered JPEGs are also kept on disk, shared by every sandbox on this machine: a real CDN
 * serves stored files, while rendering one costs more CPU than sending it, CPU that the
 * clients under test (and benchmarks) would otherwise compete with. The file's name is a
 * hash of everything the bytes follow from (the SVG, the grain's seed, the encoder and its
 * settings), so a change to any of them renders anew; files are written whole, then renamed.
 * SANDBOX_IMAGE_CACHE_DIR: another directory (tests use a fresh one to see a render).
 */
const DISK_DIR = process.env.SANDBOX_IMAGE_CACHE_DIR || join(tmpdir(), "keepsake-sandbox-images");

function diskName(picture: string, seed: number): string {
  const inputs = [picture, seed, QUALITY, sharp.versions.vips, sharp.versions.sharp ?? ""];
  return join(DISK_DIR, `${createHash("sha256").update(inputs.join("\n")).digest("hex")}.jpg`);
}

async function stored(picture: string, seed: number): Promise<Buffer> {
  const path = diskName(picture, seed);
  try {
    return await readFile(path);
  } catch {
    const data = await render(picture, seed);
    const partial = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    try {
      mkdirSync(DISK_DIR, { recursive: true });
      await writeFile(partial, data);
      await rename(partial, path);
    } catch {
      // A full or read-only disk only costs the next request a render.
    }
    return data;
  }
}

function render(picture: string, seed: number): Promise<Buffer> {
  return sharp(Buffer.from(picture))
    .composite([
      {
        input: grain(seed),
        raw: { width: GRAIN, height: GRAIN, channels: 3 },
        tile: true,
        blend: "soft-light",
      },
    ])
    .jpeg({ quality: QUALITY, chromaSubsampling: "4:2:0" })
    .toBuffer();
}

/** Deterministic JPEG for (width, height, seed): the same arguments give the same bytes. */
export function jpeg(width: number, height: number, seed: number): Promise<Buffer> {
  const key = `${width}x${height}:${seed}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const made = stored(svg(width, height, seed), seed);
  made.catch(() => cache.delete(key));
  cache.set(key, made);
  while (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  return made;
}

export async function thumbnail(data: Buffer, maxSide: number): Promise<Buffer> {
  return sharp(data).resize(maxSide, maxSide, { fit: "inside" }).jpeg({ quality: 70 }).toBuffer();
}
