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

/** Deterministic JPEG for (width, height, seed): the same arguments give the same bytes. */
export function jpeg(width: number, height: number, seed: number): Promise<Buffer> {
  const key = `${width}x${height}:${seed}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const made = sharp(Buffer.from(svg(width, height, seed)))
    .composite([
      {
        input: grain(seed),
        raw: { width: GRAIN, height: GRAIN, channels: 3 },
        tile: true,
        blend: "soft-light",
      },
    ])
    .jpeg({ quality: 86, chromaSubsampling: "4:2:0" })
    .toBuffer();
  made.catch(() => cache.delete(key));
  cache.set(key, made);
  while (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  return made;
}

export async function thumbnail(data: Buffer, maxSide: number): Promise<Buffer> {
  return sharp(data).resize(maxSide, maxSide, { fit: "inside" }).jpeg({ quality: 70 }).toBuffer();
}
