import type { GraphMediaType, GraphProductType } from "../../sync/tables.ts";
import { failure, send } from "../http.ts";
import { ProviderError } from "../provider-error.ts";
import {
  createGraphGet,
  type GraphHost,
  type GraphOptions,
  type GraphSettings,
  graphInt as int,
} from "./graph.ts";

export { type GraphHost, type GraphUsage, parseUsageHeaders } from "./graph.ts";
/** Where the Graph API is (both hosts) and which version is asked for. */
export type MediaClientSettings = GraphSettings;

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

/**
 * Graph reads of an account's media and stories, on graph.instagram.com (Instagram Login) or
 * graph.facebook.com (Facebook Login), and CDN downloads. HTTP only.
 */
export function createMediaClient(settings: MediaClientSettings, options: GraphOptions = {}) {
  const fetchImpl = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const { base, get: graphGet } = createGraphGet(settings, options);
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
