/**
 * Instagram's "Download your information" export (JSON format), read the same way in the browser
 * (the preview) and on the server (which trusts only what it parses itself).
 *
 * Quirks handled here:
 * - posts live in `your_instagram_activity/content/posts_1.json` in older exports and in
 *   `your_instagram_activity/media/posts_1.json` in newer ones, then `_2`, `_3`… as they grow;
 *   stories in `stories.json` (`ig_stories`), reels in `reels.json` (`ig_reels_media`),
 *   archived posts in `archived_posts.json` (`ig_archived_post_media`);
 * - every string is mis-encoded: each UTF-8 byte written as its own `\u00XX` character
 *   ("Rados\u00c5\u0082aw" is "Radosław") and is repaired;
 * - an HTML-format export holds no JSON and is refused, saying how to ask for JSON;
 * - the export names its account (`personal_information.json`): another account's is refused.
 */

export type ExportItemKind = "post" | "reel" | "story" | "archived_post";

export interface ExportMediaFile {
  /** The path inside the ZIP, as the export names it (`media/stories/202405/…_n_<id>.jpg`). */
  uri: string;
  /** The Instagram media id its file name ends with, when it has one. */
  media_id: string | null;
  /** ISO time. */
  taken_at: string;
  media_type: "IMAGE" | "VIDEO";
}

export interface ExportItem {
  kind: ExportItemKind;
  /** ISO time of the post (of its first media file when the post has none). */
  taken_at: string;
  caption: string | null;
  media: ExportMediaFile[];
}

export interface ParsedExport {
  /** The account the export belongs to (null when the export does not say). */
  username: string | null;
  layout: "old" | "new";
  items: ExportItem[];
}

/** What a reader of the ZIP (or of its parts) offers: every entry's path, and text by path. */
export interface ExportSource {
  paths: readonly string[];
  readText(path: string): Promise<string>;
}

export const exportMessages = {
  html: "This is an HTML export, which Keepsake cannot read. Ask Instagram for the JSON format: in the Instagram app or on instagram.com open Accounts Center → Your information and permissions → Download your information, choose Download to device, Date range: All time, Format: JSON, Media quality: High, then choose the ZIP it sends you.",
  notAnExport:
    "This ZIP is not an Instagram data export: it has no your_instagram_activity folder. Choose the ZIP Instagram sent you (JSON format).",
  unreadable: (path: string) =>
    `The export's ${path} could not be read (it is not valid JSON). Download the export again from Instagram.`,
  wrongAccount: (found: string, expected: string) =>
    `This export is of @${found}, not @${expected}. Choose the export of @${expected}, or import this one from @${found}'s Import.`,
  empty: "This export holds no posts, reels or stories with media.",
} as const;

/** The export was refused; `message` says why and what to do. */
export class ExportRefusedError extends Error {}

const decoder = (() => {
  try {
    return new TextDecoder("utf-8", { fatal: true });
  } catch {
    return null;
  }
})();

/**
 * Undoes Instagram's encoding: a string whose characters are all below U+0100 is taken as the
 * bytes of UTF-8 text; one that does not decode as UTF-8 (or holds wider characters) is kept.
 */
export function repairText(text: string): string {
  if (!decoder) return text;
  let high = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0xff) return text;
    if (c >= 0x80) high = true;
  }
  if (!high) return text;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  try {
    return decoder.decode(bytes);
  } catch {
    return text;
  }
}

/** Every string of a parsed JSON value repaired. */
export function repairDeep<T>(value: T): T {
  if (typeof value === "string") return repairText(value) as T;
  if (Array.isArray(value)) return value.map(repairDeep) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[repairText(k)] = repairDeep(v);
    return out as T;
  }
  return value;
}

const ACTIVITY = /^(?:[^/]+\/)?your_instagram_activity\/(content|media)\/([^/]+)$/;

/** The JSON files of the export the parser reads (what a browser sends the server). */
export function exportJsonPaths(paths: readonly string[]): string[] {
  return paths.filter(
    (p) =>
      (ACTIVITY.test(p) && /\/(posts_\d+|stories|reels|archived_posts)\.json$/.test(p)) ||
      /(^|\/)personal_information\/(personal_information\/)?personal_information\.json$/.test(p),
  );
}

/**
 * The paths a plan request names: the JSON files the reader reads and, for an HTML export (which
 * has none), a few of its activity pages, so that the server refuses it with the right words.
 */
export function exportPlanPaths(paths: readonly string[]): string[] {
  const html = paths.filter((p) => /(^|\/)your_instagram_activity\/.*\.html$/.test(p)).slice(0, 10);
  return [...exportJsonPaths(paths), ...html];
}

/** The only keys `readInstagramExport` reads; everything else in the export's JSON is dropped. */
const READ_KEYS = new Set([
  "title",
  "creation_timestamp",
  "media",
  "uri",
  "ig_stories",
  "ig_reels_media",
  "ig_archived_post_media",
  "profile_user",
  "string_map_data",
  "Username",
  "username",
  "value",
]);

function keepRead(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keepRead);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (READ_KEYS.has(k)) out[k] = keepRead(v);
    return out;
  }
  return value;
}

/**
 * One of the export's JSON files as the browser sends it: only what the reader reads (no EXIF,
 * no e-mail or phone of `personal_information.json`), without indentation, strings untouched
 * (the server repairs them as it would the original). Text that is not JSON is sent as it is,
 * for the server to refuse. A year of stories shrinks to about a third.
 */
export function compactExportJson(text: string): string {
  try {
    return JSON.stringify(keepRead(JSON.parse(text)));
  } catch {
    return text;
  }
}

/** `…_n_17912345678901234.jpg` → the media id. */
export function mediaIdOf(uri: string): string | null {
  const m = /_(\d{15,20})\.[A-Za-z0-9]+$/.exec(uri);
  return m ? (m[1] as string) : null;
}

const VIDEO = /\.(mp4|mov|m4v|webm)$/i;

interface RawMedia {
  uri?: unknown;
  creation_timestamp?: unknown;
  title?: unknown;
}
interface RawPost {
  media?: unknown;
  title?: unknown;
  creation_timestamp?: unknown;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v : null);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

function mediaFile(raw: RawMedia, fallbackTime: number | null): ExportMediaFile | null {
  const uri = str(raw.uri);
  const t = num(raw.creation_timestamp) ?? fallbackTime;
  if (!uri || t === null || /^https?:/i.test(uri)) return null;
  return {
    uri,
    media_id: mediaIdOf(uri),
    taken_at: iso(t),
    media_type: VIDEO.test(uri) ? "VIDEO" : "IMAGE",
  };
}

function post(kind: ExportItemKind, raw: RawPost): ExportItem | null {
  const list = Array.isArray(raw.media) ? (raw.media as RawMedia[]) : [];
  const own = num(raw.creation_timestamp);
  const media = list
    .map((m) => mediaFile(m ?? {}, own))
    .filter((m): m is ExportMediaFile => m !== null);
  const first = media[0];
  if (!first) return null;
  const caption = str(raw.title) ?? str(list[0]?.title);
  return {
    kind,
    taken_at: own !== null ? iso(own) : first.taken_at,
    caption,
    media,
  };
}

function usernameOf(json: unknown): string | null {
  const user = (
    json as { profile_user?: { string_map_data?: Record<string, { value?: unknown }> }[] }
  )?.profile_user?.[0]?.string_map_data;
  const value = user?.Username?.value ?? user?.username?.value;
  return typeof value === "string" && value ? value.replace(/^@/, "") : null;
}

/**
 * Reads an export: refuses an HTML export, one that is not an Instagram export, and (with
 * `expectedUsername`) one of another account; answers its items, newest first.
 */
export async function readInstagramExport(
  source: ExportSource,
  expectedUsername?: string,
): Promise<ParsedExport> {
  const jsonPaths = exportJsonPaths(source.paths);
  const activity = source.paths.filter((p) => /(^|\/)your_instagram_activity\//.test(p));
  if (!jsonPaths.some((p) => ACTIVITY.test(p))) {
    if (activity.some((p) => p.endsWith(".html")))
      throw new ExportRefusedError(exportMessages.html);
    throw new ExportRefusedError(exportMessages.notAnExport);
  }
  const read = async (path: string): Promise<unknown> => {
    let text: string;
    try {
      text = await source.readText(path);
      return repairDeep(JSON.parse(text));
    } catch {
      throw new ExportRefusedError(exportMessages.unreadable(path));
    }
  };
  const personal = jsonPaths.find((p) => p.endsWith("personal_information.json"));
  const username = personal ? usernameOf(await read(personal)) : null;
  if (expectedUsername && username && username.toLowerCase() !== expectedUsername.toLowerCase()) {
    throw new ExportRefusedError(exportMessages.wrongAccount(username, expectedUsername));
  }
  let layout: "old" | "new" = "new";
  const items: ExportItem[] = [];
  const ordered = [...jsonPaths].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  for (const path of ordered) {
    const m = ACTIVITY.exec(path);
    if (!m) continue;
    if (m[1] === "content") layout = "old";
    const name = m[2] as string;
    const json = await read(path);
    if (/^posts_\d+\.json$/.test(name)) {
      const list = Array.isArray(json) ? json : [];
      for (const raw of list) {
        const it = post("post", (raw ?? {}) as RawPost);
        if (it) items.push(it);
      }
    } else if (name === "stories.json") {
      const list = (json as { ig_stories?: unknown })?.ig_stories;
      for (const raw of Array.isArray(list) ? list : []) {
        const f = mediaFile((raw ?? {}) as RawMedia, null);
        if (f)
          items.push({
            kind: "story",
            taken_at: f.taken_at,
            caption: str((raw as RawMedia).title),
            media: [f],
          });
      }
    } else if (name === "reels.json") {
      const list = (json as { ig_reels_media?: unknown })?.ig_reels_media;
      for (const raw of Array.isArray(list) ? list : []) {
        const it = post("reel", (raw ?? {}) as RawPost);
        if (it) items.push(it);
      }
    } else if (name === "archived_posts.json") {
      const list = (json as { ig_archived_post_media?: unknown })?.ig_archived_post_media;
      for (const raw of Array.isArray(list) ? list : []) {
        const it = post("archived_post", (raw ?? {}) as RawPost);
        if (it) items.push(it);
      }
    }
  }
  if (items.length === 0) throw new ExportRefusedError(exportMessages.empty);
  items.sort((a, b) => b.taken_at.localeCompare(a.taken_at));
  return { username, layout, items };
}
