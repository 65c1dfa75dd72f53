import { createGraphGet, type GraphHost, type GraphOptions, type GraphSettings } from "./graph.ts";
import { parseGraphTime } from "./media.client.ts";

/** The permission that lets a token read comment text, per Graph host (PROVIDERS.md). */
export const COMMENTS_PERMISSION: Record<GraphHost, string> = {
  instagram: "instagram_business_manage_comments",
  facebook: "instagram_manage_comments",
};

const ONE = "id,text,timestamp,username,like_count,hidden";
export const COMMENT_FIELDS = `${ONE},replies{${ONE}}`;
/** Comments and replies come at most 50 a page. */
export const COMMENTS_PAGE_SIZE = 50;

export interface GraphComment {
  id: string;
  parentId: string | null;
  username: string | null;
  text: string;
  likeCount: number | null;
  hidden: boolean;
  timestamp: Date;
}

const str = (v: unknown): string | null =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : null;

function parse(raw: unknown, parentId: string | null): GraphComment | null {
  if (!raw || typeof raw !== "object") return null;
  const r = raw as Record<string, unknown>;
  const id = str(r.id);
  const timestamp = parseGraphTime(r.timestamp);
  if (!id || !timestamp) return null;
  return {
    id,
    parentId,
    username: str(r.username),
    text: str(r.text) ?? "",
    likeCount: typeof r.like_count === "number" ? Math.trunc(r.like_count) : null,
    hidden: r.hidden === true,
    timestamp,
  };
}

const nextOf = (body: Record<string, unknown>) => {
  const next = (body.paging as { next?: unknown } | undefined)?.next;
  return typeof next === "string" ? next : null;
};

/**
 * Reads a media object's comments with their replies: `GET /{media-id}/comments` (50 a page,
 * cursor paging) with replies expanded, and `GET /{comment-id}/replies` for a comment with more
 * replies than its first page. Needs the comments permission (COMMENTS_PERMISSION); without it
 * Graph answers a permission error (ProviderError kind `permission`). HTTP only.
 */
export function createCommentsClient(settings: GraphSettings, options: GraphOptions = {}) {
  const { base, get } = createGraphGet(settings, options);

  return {
    /**
     * Every comment and reply of one media object. `call` wraps each request (the Graph pacer);
     * answers them with the number of requests made.
     */
    async mediaComments(p: {
      host: GraphHost;
      token: string;
      mediaId: string;
      accountKey: string;
      call: <T>(fn: () => Promise<T>) => Promise<T>;
      maxPages?: number;
    }): Promise<{ comments: GraphComment[]; requests: number }> {
      const out: GraphComment[] = [];
      let requests = 0;
      const limit = String(COMMENTS_PAGE_SIZE);
      const more: string[] = [];
      let next: string | null =
        `${base(p.host)}/${encodeURIComponent(p.mediaId)}/comments?${new URLSearchParams({ fields: COMMENT_FIELDS, limit })}`;
      const maxPages = p.maxPages ?? 200;
      while (next && requests < maxPages) {
        const url: string = next;
        const body = await p.call(() => get(p.host, url, p.token, p.accountKey));
        requests++;
        for (const raw of Array.isArray(body.data) ? body.data : []) {
          const c = parse(raw, null);
          if (!c) continue;
          out.push(c);
          const replies = (raw as { replies?: Record<string, unknown> }).replies;
          for (const r of Array.isArray(replies?.data) ? replies.data : []) {
            const reply = parse(r, c.id);
            if (reply) out.push(reply);
          }
          if (replies && nextOf(replies)) more.push(c.id);
        }
        next = nextOf(body);
      }
      // Replies beyond the first page of a comment: its own edge, from the start.
      for (const commentId of more) {
        const seen = new Set(out.filter((c) => c.parentId === commentId).map((c) => c.id));
        let page: string | null =
          `${base(p.host)}/${encodeURIComponent(commentId)}/replies?${new URLSearchParams({ fields: ONE, limit })}`;
        while (page && requests < maxPages) {
          const url: string = page;
          const body = await p.call(() => get(p.host, url, p.token, p.accountKey));
          requests++;
          for (const r of Array.isArray(body.data) ? body.data : []) {
            const reply = parse(r, commentId);
            if (reply && !seen.has(reply.id)) out.push(reply);
          }
          page = nextOf(body);
        }
      }
      return { comments: out, requests };
    },
  };
}

export type CommentsClient = ReturnType<typeof createCommentsClient>;
