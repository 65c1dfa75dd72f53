import {
  configure,
  TextReader,
  Uint8ArrayReader,
  Uint8ArrayWriter,
  ZipWriter,
} from "@zip.js/zip.js";
import { jpeg } from "./images.ts";
import { mp4Bytes, mp4TotalSize } from "./mp4.ts";
import { Prng } from "./prng.ts";
import type { IgAccount, IgMedia, SandboxState } from "./state.ts";

configure({ useWebWorkers: false });

/**
 * Instagram's "Download your information" export of one account, as a ZIP built the way
 * Instagram builds it: JSON with every non-ASCII character written as its UTF-8 bytes
 * (`\u00c5\u0082` for "ł"), media under `media/<kind>/<YYYYMM>/` (file names ending in the media
 * id, for most), and the JSON files under `your_instagram_activity/content/` (older exports) or
 * `your_instagram_activity/media/` (newer ones). Beside some of the live posts the API returns,
 * it holds what the API never returns: archived stories and archived posts.
 */
export type ExportLayout = "old" | "new";
export type ExportFormat = "json" | "html";

const CAPTIONS = [
  "Rosé tones with Radosław at the studio 🌅",
  "Café crème & contact sheets ☕️📸",
  "Łódź, Kraków, Zürich — three cities in one week ✨",
  "Behind the scenes: naïve sketches → final prints 🖤",
  "Señora Núñez's portrait, finally printed 🧡",
  "Crème brûlée for the crew 🎬",
  "Øresund light at 6 am 🌿",
  "Back in the archive: first roll of 2024 🎞️",
];

/** Each string as Instagram writes it: every UTF-8 byte of a non-ASCII character as `\u00XX`. */
export function misencodedJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2);
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (code < 0x80) {
      out += ch;
      continue;
    }
    for (const byte of Buffer.from(ch, "utf8")) {
      out += `\\u00${byte.toString(16).padStart(2, "0")}`;
    }
  }
  return out;
}

interface ExportMedia {
  uri: string;
  creation_timestamp: number;
  title: string;
  bytes: () => Promise<Uint8Array>;
}

const seconds = (ms: number) => Math.floor(ms / 1000);
const month = (ms: number) => new Date(ms).toISOString().slice(0, 7).replace("-", "");

function fileStem(rng: Prng): string {
  return `${rng.int(100_000_000, 999_999_999)}_${rng.int(1_000_000, 9_999_999)}${rng.int(100_000_000, 999_999_999)}`;
}

/** `media/<dir>/<YYYYMM>/<stem>_n[_<media id>].<ext>` */
function uri(rng: Prng, dir: string, at: number, ext: string, mediaId: string | null) {
  return `media/${dir}/${month(at)}/${fileStem(rng)}_n${mediaId ? `_${mediaId}` : ""}.${ext}`;
}

function videoBytes(bytes: number, seed: number, w: number, h: number) {
  return async () => {
    const spec = { bytes, aspectW: w, aspectH: h, seed };
    const parts: Buffer[] = [];
    for await (const p of mp4Bytes(spec, 0, mp4TotalSize(spec) - 1)) parts.push(p);
    return new Uint8Array(Buffer.concat(parts));
  };
}

function imageBytes(w: number, h: number, seed: number) {
  return async () => new Uint8Array(await jpeg(w, h, seed));
}

/** Ids the API never hands out (archived media). */
function archivedId(account: IgAccount, n: number): string {
  return (17_800_000_000_000_000n + BigInt(account.id.slice(-4)) * 1000n + BigInt(n)).toString();
}

function liveMedia(state: SandboxState, account: IgAccount): IgMedia[] {
  return account.media
    .map((id) => state.media[id])
    .filter((m): m is IgMedia => Boolean(m && !m.ghost && !m.withheld && !m.pinned));
}

export interface ExportContent {
  username: string;
  posts: { title?: string; creation_timestamp?: number; media: ExportMedia[] }[];
  reels: { media: ExportMedia[] }[];
  stories: ExportMedia[];
  archived: { title?: string; creation_timestamp?: number; media: ExportMedia[] }[];
}

/** What the export of `account` holds (deterministic for an account's seeded content). */
export function exportContent(state: SandboxState, account: IgAccount): ExportContent {
  const rng = new Prng(`export:${account.username}`);
  const live = liveMedia(state, account);
  const images = live.filter((m) => m.mediaType === "IMAGE" && m.asset?.kind === "image");
  const reels = live.filter(
    (m) => m.productType === "REELS" && m.asset?.kind === "video" && m.asset.bytes > 0,
  );
  const asPostMedia = (m: IgMedia, withId: boolean): ExportMedia => {
    const a = m.asset as { width: number; height: number; seed: number };
    return {
      uri: uri(rng, "posts", m.timestamp, "jpg", withId ? m.id : null),
      // Without the id in its name, the post is known by its time (a second off) and caption.
      creation_timestamp: seconds(m.timestamp) + (withId ? 0 : 1),
      title: m.caption ?? "",
      bytes: imageBytes(a.width, a.height, a.seed),
    };
  };
  const posts = images.slice(0, 8).map((m, i) => ({
    title: m.caption ?? "",
    creation_timestamp: seconds(m.timestamp),
    media: [asPostMedia(m, i % 4 !== 3)],
  }));
  const reelEntries = reels.slice(0, 2).map((m) => {
    const a = m.asset as { width: number; height: number; bytes: number; seed: number };
    return {
      media: [
        {
          uri: uri(rng, "reels", m.timestamp, "mp4", m.id),
          creation_timestamp: seconds(m.timestamp),
          title: m.caption ?? "",
          bytes: videoBytes(a.bytes, a.seed, a.width, a.height),
        },
      ],
    };
  });
  // Archived stories: two years of them, long gone from the API.
  const stories: ExportMedia[] = [];
  let t = Date.UTC(2025, 10, 2, 18, 12, 5);
  for (let i = 0; i < 8; i++) {
    const video = i % 4 === 2;
    const id = archivedId(account, 100 + i);
    const seed = rng.int(1, 2 ** 31);
    stories.push({
      uri: uri(rng, "stories", t, video ? "mp4" : "jpg", i === 5 ? null : id),
      creation_timestamp: seconds(t),
      title: i % 2 === 0 ? (CAPTIONS[i % CAPTIONS.length] as string) : "",
      bytes: video ? videoBytes(180 * 1024 + i * 1024, seed, 352, 640) : imageBytes(540, 960, seed),
    });
    t -= rng.int(20, 80) * 86_400_000 + rng.int(0, 86_399) * 1000;
  }
  const archived: ExportContent["archived"] = [];
  let a = Date.UTC(2024, 2, 14, 9, 41, 0);
  for (let i = 0; i < 3; i++) {
    const count = i === 1 ? 2 : 1;
    const title = CAPTIONS[(i + 3) % CAPTIONS.length] as string;
    const media: ExportMedia[] = [];
    for (let k = 0; k < count; k++) {
      const seed = rng.int(1, 2 ** 31);
      media.push({
        uri: uri(rng, "archived_posts", a, "jpg", archivedId(account, 200 + i * 10 + k)),
        creation_timestamp: seconds(a),
        title,
        bytes: imageBytes(1080, 1080, seed),
      });
    }
    archived.push({ title, creation_timestamp: seconds(a), media });
    a -= rng.int(30, 120) * 86_400_000;
  }
  return { username: account.username, posts, reels: reelEntries, stories, archived };
}

const plain = (m: ExportMedia) => ({
  uri: m.uri,
  creation_timestamp: m.creation_timestamp,
  title: m.title,
  media_metadata: { photo_metadata: { exif_data: [{ latitude: 52.2297, longitude: 21.0122 }] } },
});

/** The export as a ZIP. */
export async function exportZip(
  content: ExportContent,
  layout: ExportLayout,
  format: ExportFormat,
): Promise<Uint8Array> {
  const zip = new ZipWriter(new Uint8ArrayWriter());
  const stamp = new Date(Date.UTC(2026, 5, 30, 12, 0, 0));
  const addText = (name: string, text: string) =>
    zip.add(name, new TextReader(text), { lastModDate: stamp });
  const dir = layout === "old" ? "content" : "media";
  const profile = {
    profile_user: [
      {
        media_map_data: {},
        string_map_data: {
          Username: { href: "", value: content.username, timestamp: 0 },
          Name: { href: "", value: `${content.username} ✨`, timestamp: 0 },
        },
      },
    ],
  };
  const personal =
    layout === "old"
      ? "personal_information/personal_information.json"
      : "personal_information/personal_information/personal_information.json";
  const half = Math.ceil(content.posts.length / 2);
  const posts1 = content.posts.slice(0, half).map((p) => ({ ...p, media: p.media.map(plain) }));
  const posts2 = content.posts.slice(half).map((p) => ({ ...p, media: p.media.map(plain) }));
  if (format === "json") {
    await addText(personal, misencodedJson(profile));
    await addText(`your_instagram_activity/${dir}/posts_1.json`, misencodedJson(posts1));
    await addText(`your_instagram_activity/${dir}/posts_2.json`, misencodedJson(posts2));
    await addText(
      `your_instagram_activity/${dir}/stories.json`,
      misencodedJson({ ig_stories: content.stories.map(plain) }),
    );
    await addText(
      `your_instagram_activity/${dir}/reels.json`,
      misencodedJson({ ig_reels_media: content.reels.map((r) => ({ media: r.media.map(plain) })) }),
    );
    await addText(
      `your_instagram_activity/${dir}/archived_posts.json`,
      misencodedJson({
        ig_archived_post_media: content.archived.map((p) => ({ ...p, media: p.media.map(plain) })),
      }),
    );
  } else {
    const html = (title: string) =>
      `<html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1></body></html>`;
    await addText(personal.replace(/\.json$/, ".html"), html("Personal information"));
    await addText(`your_instagram_activity/${dir}/posts_1.html`, html("Posts"));
    await addText(`your_instagram_activity/${dir}/stories.html`, html("Stories"));
    await addText(`your_instagram_activity/${dir}/archived_posts.html`, html("Archived posts"));
  }
  const all = [
    ...content.posts.flatMap((p) => p.media),
    ...content.reels.flatMap((r) => r.media),
    ...content.stories,
    ...content.archived.flatMap((p) => p.media),
  ];
  for (const m of all) {
    await zip.add(m.uri, new Uint8ArrayReader(await m.bytes()), {
      level: 0,
      lastModDate: new Date(m.creation_timestamp * 1000),
    });
  }
  return zip.close();
}

const cache = new Map<string, Promise<Uint8Array>>();

/** The export ZIP of `account` (built once per account, layout and format). */
export function accountExport(
  state: SandboxState,
  account: IgAccount,
  layout: ExportLayout,
  format: ExportFormat,
): Promise<Uint8Array> {
  const content = exportContent(state, account);
  const key = JSON.stringify([
    account.username,
    layout,
    format,
    content.posts.map((p) => p.media[0]?.uri),
  ]);
  let zip = cache.get(key);
  if (!zip) {
    if (cache.size > 8) cache.clear();
    zip = exportZip(content, layout, format);
    zip.catch(() => cache.delete(key));
    cache.set(key, zip);
  }
  return zip;
}

/** lumen.studio's export uses the newer layout, every other account the older one. */
export const defaultLayout = (username: string): ExportLayout =>
  username === "lumen.studio" ? "new" : "old";
