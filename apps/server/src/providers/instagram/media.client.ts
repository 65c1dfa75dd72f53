import type { GraphMediaType, GraphProductType } from "../../sync/tables.ts";
import { type FetchLike, failure, jsonObject, send } from "../http.ts";
import { graphError, ProviderError } from "../provider-error.ts";

/** A CDN failure other than an expired URL. */
function cdnError(status: number): ProviderError {
  const kind =
    status === 404
      ? "not_found"
      : status === 429
        ? "throttled"
        : status >= 500
          ? "transient"
          : "unknown";
  return new ProviderError("instagram", kind, `CDN answered HTTP ${status}`, { status });
}

/** Which Graph host an account is read through (how it was connected). */
export type GraphHost = "instagram" | "facebook";

export const MEDIA_FIELDS =
  "id,caption,media_type,media_product_type,media_url,thumbnail_url,permalink,shortcode,timestamp,like_count,comments_count,view_count,saved_count,shares_count,reposts_count,children{id,media_type,media_url,thumbnail_url}";
const CHILD_FIELDS = "id,media_type,media_url,thumbnail_url";

export interface GraphChild {
  id: string;
  mediaType: GraphMediaType;
  mediaUrl: string | null;
  thumbnailUrl: string | null;
}

export interface GraphMedia {
  id: string;
  caption: string | null;
  mediaType: GraphMediaType;
  productType: GraphProductType | null;
  mediaUrl: string | null;
  thumbnailUrl: string | null;
  permalink: string | null;
  shortcode: string | null;
  timestamp: Date;
  likeCount: number | null;
  commentsCount: number | null;
  /** Counters newer API versions return on top-level media; null when absent (hidden). */
  viewCount: number | null;
  savedCount: number | null;
  sharesCount: number | null;
  repostsCount: number | null;
  children: GraphChild[];
}

/** The usage headers of one Graph answer, in percent (throttled at 100). */
export interface GraphUsage {
  appPercent: number;
  accountPercent: number;
  /** Minutes until the account may call again; 0 when not throttled. */
  regainMinutes: number;
}

export interface MediaPage {
  media: GraphMedia[];
  /** The `paging.next` URL; its absence is the end (pages may be short or empty). */
  next: string | null;
}

/** The signed CDN URL is no longer valid: fetch the media object again for a fresh one. */
export class MediaUrlExpiredError extends Error {
  constructor() {
    super("The media URL expired");
    this.name = "MediaUrlExpiredError";
  }
}

const MEDIA_TYPES = new Set(["IMAGE", "VIDEO", "CAROUSEL_ALBUM"]);
const PRODUCT_TYPES = new Set(["FEED", "REELS", "STORY", "AD"]);
const str = (v: unknown): string | null =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : null;
const int = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : null;

/** Graph timestamps look like `2024-09-26T22:36:43+0000`. */
export function parseGraphTime(v: unknown): Date | null {
  if (typeof v !== "string") return null;
  const iso = v.replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

function mediaType(v: unknown): GraphMediaType {
  const t = typeof v === "string" ? v.toUpperCase() : "";
  return (MEDIA_TYPES.has(t) ? t : "IMAGE") as GraphMediaType;
}

function child(raw: Record<string, unknown>): GraphChild | null {
  const id = str(raw.id);
  if (!id) return null;
  return {
    id,
    mediaType: mediaType(raw.media_type),
    mediaUrl: str(raw.media_url),
    thumbnailUrl: str(raw.thumbnail_url),
  };
}

export function parseMedia(raw: Record<string, unknown>, fallbackProduct?: GraphProductType) {
  const id = str(raw.id);
  const timestamp = parseGraphTime(raw.timestamp);
  if (!id || !timestamp) return null;
  const product = typeof raw.media_product_type === "string" ? raw.media_product_type : null;
  const children = (raw.children as { data?: unknown[] } | undefined)?.data ?? [];
  return {
    id,
    caption: str(raw.caption),
    mediaType: mediaType(raw.media_type),
    productType: (product && PRODUCT_TYPES.has(product)
      ? product
      : (fallbackProduct ?? null)) as GraphProductType | null,
    mediaUrl: str(raw.media_url),
    thumbnailUrl: str(raw.thumbnail_url),
    permalink: str(raw.permalink),
    shortcode: str(raw.shortcode),
    timestamp,
    likeCount: int(raw.like_count),
    commentsCount: int(raw.comments_count),
    viewCount: int(raw.view_count),
    savedCount: int(raw.saved_count),
    sharesCount: int(raw.shares_count),
    repostsCount: int(raw.reposts_count),
    children: children
      .map((c) => (c && typeof c === "object" ? child(c as Record<string, unknown>) : null))
      .filter((c): c is GraphChild => c !== null),
  } satisfies GraphMedia;
}

/** Highest percentages of `X-App-Usage` and `X-Business-Use-Case-Usage`. */
export function parseUsageHeaders(headers: Headers): GraphUsage | null {
  const app = headers.get("x-app-usage");
  const buc = headers.get("x-business-use-case-usage");
  if (!app && !buc) return null;
  let appPercent = 0;
  let accountPercent = 0;
  let regainMinutes = 0;
  try {
    if (app) {
      const a = JSON.parse(app) as Record<string, unknown>;
      appPercent = Math.max(
        int(a.call_count) ?? 0,
        int(a.total_cputime) ?? 0,
        int(a.total_time) ?? 0,
      );
    }
    if (buc) {
      const b = JSON.parse(buc) as Record<string, unknown>;
      for (const entries of Object.values(b)) {
        for (const e of Array.isArray(entries) ? entries : []) {
          const u = e as Record<string, unknown>;
          accountPercent = Math.max(
            accountPercent,
            int(u.call_count) ?? 0,
            int(u.total_cputime) ?? 0,
            int(u.total_time) ?? 0,
          );
          regainMinutes = Math.max(regainMinutes, int(u.estimated_time_to_regain_access) ?? 0);
        }
      }
    }
  } catch {
    return null;
  }
  return { appPercent, accountPercent, regainMinutes };
}

export interface MediaClientSettings {
  instagramGraphUrl: string;
  facebookGraphUrl: string;
  graphVersion: string;
}

/**
 * Graph reads of an account's media and stories, on graph.instagram.com (Instagram Login) or
 * graph.facebook.com (Facebook Login), and CDN downloads. HTTP only.
 */
export function createMediaClient(
  settings: MediaClientSettings,
  options: {
    fetch?: FetchLike;
    /** Called with the usage headers of every Graph answer. */
    onUsage?: (accountKey: string, usage: GraphUsage) => void;
    now?: () => number;
  } = {},
) {
  const fetchImpl = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const base = (host: GraphHost) =>
    `${host === "instagram" ? settings.instagramGraphUrl : settings.facebookGraphUrl}/${settings.graphVersion}`;

  async function graphGet(
    host: GraphHost,
    url: string,
    token: string,
    accountKey: string,
  ): Promise<Record<string, unknown>> {
    const u = new URL(url);
    const origin = new URL(base(host)).origin;
    if (u.origin !== origin) {
      throw new ProviderError(host, "unknown", "Graph pointed to an unexpected host");
    }
    if (!u.searchParams.has("access_token")) u.searchParams.set("access_token", token);
    const res = await send(
      u,
      { headers: { accept: "application/json" } },
      { provider: host, fetch: fetchImpl },
    );
    const usage = parseUsageHeaders(res.headers);
    if (usage) options.onUsage?.(accountKey, usage);
    if (!res.ok) {
      const regain = usage && usage.regainMinutes > 0 ? usage.regainMinutes * 60_000 : null;
      throw await failure(res, (status, body) => graphError(host, status, body), now(), regain);
    }
    return jsonObject(res, host);
  }

  function page(body: Record<string, unknown>, product?: GraphProductType): MediaPage {
    const data = Array.isArray(body.data) ? body.data : [];
    const media = data
      .map((m) =>
        m && typeof m === "object" ? parseMedia(m as Record<string, unknown>, product) : null,
      )
      .filter((m): m is GraphMedia => m !== null);
    const paging = body.paging as { next?: unknown } | undefined;
    return { media, next: typeof paging?.next === "string" ? paging.next : null };
  }

  return {
    /** One page of the account's media, newest first (pinned posts come first). */
    async mediaPage(p: {
      host: GraphHost;
      token: string;
      igUserId: string;
      limit?: number;
      next?: string | null;
    }): Promise<MediaPage> {
      const url =
        p.next ??
        `${base(p.host)}/${encodeURIComponent(p.igUserId)}/media?${new URLSearchParams({
          fields: MEDIA_FIELDS,
          limit: String(p.limit ?? 50),
        })}`;
      return page(await graphGet(p.host, url, p.token, p.igUserId));
    },

    /** Stories of the last 24 hours (all pages). */
    async stories(p: { host: GraphHost; token: string; igUserId: string }): Promise<GraphMedia[]> {
      const out: GraphMedia[] = [];
      let next: string | null =
        `${base(p.host)}/${encodeURIComponent(p.igUserId)}/stories?${new URLSearchParams({
          fields: MEDIA_FIELDS.replace(",children{id,media_type,media_url,thumbnail_url}", ""),
          limit: "50",
        })}`;
      for (let pages = 0; next && pages < 20; pages++) {
        const pg = page(await graphGet(p.host, next, p.token, p.igUserId), "STORY");
        out.push(...pg.media);
        next = pg.next;
      }
      return out;
    },

    /** One media object with fresh CDN URLs (children included). */
    async media(p: { host: GraphHost; token: string; mediaId: string; accountKey: string }) {
      const url = `${base(p.host)}/${encodeURIComponent(p.mediaId)}?${new URLSearchParams({ fields: MEDIA_FIELDS })}`;
      const m = parseMedia(await graphGet(p.host, url, p.token, p.accountKey));
      if (!m)
        throw new ProviderError(p.host, "unknown", "Graph returned a media object without id");
      return m;
    },

    /** A carousel child with a fresh CDN URL. */
    async child(p: { host: GraphHost; token: string; mediaId: string; accountKey: string }) {
      const url = `${base(p.host)}/${encodeURIComponent(p.mediaId)}?${new URLSearchParams({ fields: CHILD_FIELDS })}`;
      const c = child(await graphGet(p.host, url, p.token, p.accountKey));
      if (!c)
        throw new ProviderError(p.host, "unknown", "Graph returned a media object without id");
      return c;
    },

    /**
     * Opens a CDN download. The body is a stream the caller must consume or cancel.
     * A 403 means the signed URL expired (MediaUrlExpiredError).
     */
    async download(url: string, signal?: AbortSignal): Promise<Response> {
      // A download may run for minutes: no time limit unless the caller's signal says so.
      const res = await send(url, signal ? { signal } : {}, {
        provider: "instagram",
        label: "the Instagram CDN",
        fetch: fetchImpl,
        timeoutMs: 0,
      });
      if (res.ok && res.body) return res;
      if (res.status === 403 || res.status === 410) {
        await res.body?.cancel().catch(() => {});
        throw new MediaUrlExpiredError();
      }
      throw await failure(res, cdnError, now());
    },
  };
}

export type MediaClient = ReturnType<typeof createMediaClient>;
