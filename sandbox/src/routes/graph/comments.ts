import type { FastifyReply } from "fastify";
import type { Ctx } from "../../context.ts";
import { commentById, mediaComments } from "../../demo/index.ts";
import { sendGraphError } from "../../errors.ts";
import type { FieldTree } from "../../fields.ts";
import type { IgComment, IgMedia } from "../../state.ts";
import { graphDate } from "../../tokens.ts";
import { type GraphCall, notFound, usageHeaders } from "./call.ts";
import { checkFields, fieldTree } from "./render.ts";

/** The permission that lets a token read comment text, per Graph host (PROVIDERS.md). */
export const COMMENTS_SCOPE = {
  instagram: "instagram_business_manage_comments",
  facebook: "instagram_manage_comments",
} as const;

const COMMENT_FIELDS = new Set([
  "id",
  "text",
  "timestamp",
  "username",
  "like_count",
  "hidden",
  "parent_id",
  "from",
  "media",
  "replies",
]);

const prefix = (call: GraphCall) => (call.principal.host === "instagram" ? "ig" : "fb");

function renderComment(
  ctx: Ctx,
  c: IgComment,
  tree: FieldTree,
  repliesUrl?: (id: string) => string,
): Record<string, unknown> {
  checkFields(tree, COMMENT_FIELDS, "IGComment");
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    if (key === "id") out.id = c.id;
    else if (key === "text") out.text = c.text;
    else if (key === "timestamp") out.timestamp = graphDate(c.timestamp);
    else if (key === "username") out.username = c.username;
    else if (key === "like_count") out.like_count = c.likeCount;
    else if (key === "hidden") out.hidden = c.hidden;
    else if (key === "parent_id") {
      if (c.parentId) out.parent_id = c.parentId;
    } else if (key === "from") out.from = { id: c.fromId, username: c.username };
    else if (key === "media") out.media = { id: c.mediaId };
    else if (key === "replies" && !c.parentId) {
      const replies = c.replies.slice(0, 50);
      const inner = sub ?? new Map([["id", null]]);
      out.replies = {
        data: replies
          .map((r) => commentById(ctx.state, r))
          .filter((r): r is IgComment => r !== undefined)
          .map((r) => renderComment(ctx, r, inner)),
      };
      if (c.replies.length > 50 && repliesUrl)
        (out.replies as Record<string, unknown>).paging = { next: repliesUrl(c.id) };
    }
  }
  return out;
}

/** Offset cursors over a list of ids (comments pages are small; Graph's cursors are opaque). */
function page(ctx: Ctx, call: GraphCall, ids: string[], tree: FieldTree) {
  const p = call.params;
  let limit = p.limit ? Number(p.limit) : 25;
  if (!Number.isFinite(limit) || limit < 1) limit = 25;
  limit = Math.min(Math.floor(limit), 50);
  const decode = (s: string) => {
    const n = Number(Buffer.from(s, "base64url").toString().replace(/^CMT:/, ""));
    if (!Number.isInteger(n) || n < 0) throw new Error("bad cursor");
    return n;
  };
  let start = 0;
  if (p.after) {
    try {
      start = decode(p.after);
    } catch {
      return null;
    }
  }
  const slice = ids.slice(start, start + limit);
  const data = slice
    .map((id) => commentById(ctx.state, id))
    .filter((c): c is IgComment => c !== undefined)
    .map((c) =>
      renderComment(ctx, c, tree, (id) => {
        const u = new URL(
          `${ctx.baseUrl(call.req)}/graph.${call.principal.host}.com/${call.version ? `${call.version}/` : ""}${id}/replies`,
        );
        if (call.tokenFromQuery && p.access_token)
          u.searchParams.set("access_token", p.access_token);
        u.searchParams.set("limit", "50");
        u.searchParams.set("after", Buffer.from("CMT:50").toString("base64url"));
        return u.toString();
      }),
    );
  const body: Record<string, unknown> = { data };
  if (slice.length === 0) return body;
  const after = Buffer.from(`CMT:${start + slice.length}`).toString("base64url");
  const paging: Record<string, unknown> = {
    cursors: { before: Buffer.from(`CMT:${start}`).toString("base64url"), after },
  };
  if (start + slice.length < ids.length) {
    const u = new URL(
      `${ctx.baseUrl(call.req)}/graph.${call.principal.host}.com/${call.version ? `${call.version}/` : ""}${call.path.join("/")}`,
    );
    for (const [k, v] of Object.entries(p)) {
      if (k === "after" || k === "before") continue;
      if (k === "access_token" && !call.tokenFromQuery) continue;
      u.searchParams.set(k, v);
    }
    u.searchParams.set("limit", String(limit));
    u.searchParams.set("after", after);
    paging.next = u.toString();
  }
  body.paging = paging;
  return body;
}

/**
 * `/{ig-media-id}/comments` (top-level, newest first) and `/{ig-comment-id}/replies` (oldest
 * first): at most 50 a page, cursor paging. Without the comments permission Graph answers
 * `(#10) Application does not have permission for this action`.
 */
export async function commentsEdge(ctx: Ctx, call: GraphCall): Promise<FastifyReply> {
  const { reply, principal } = call;
  const [id = "", edge] = call.path;
  let owner: string | undefined;
  let ids: string[] = [];
  let media: IgMedia | undefined;
  if (edge === "comments") {
    media = ctx.state.media[id];
    if (!media || media.ghost || media.parentId || media.productType === "STORY")
      return notFoundCounted(ctx, call, id);
    owner = media.ownerId;
  } else {
    const c = commentById(ctx.state, id);
    media = c ? ctx.state.media[c.mediaId] : undefined;
    if (!c || !media) return notFoundCounted(ctx, call, id);
    owner = media.ownerId;
    ids = c.replies;
  }
  const account = principal.accounts.find((a) => a.id === owner);
  if (!account) return notFoundCounted(ctx, call, id);
  if (!(await ctx.enter(call.req, reply, `${prefix(call)}.${edge}`))) return reply;
  if (!usageHeaders(ctx, call, account)) return reply;
  if (!principal.token.scopes.includes(COMMENTS_SCOPE[principal.host]))
    return sendGraphError(
      reply,
      403,
      10,
      "(#10) Application does not have permission for this action",
    );
  if (edge === "comments") {
    ids = mediaComments(ctx.state, media);
    ctx.changed();
  }
  const tree = fieldTree(call.params.fields);
  const body = page(ctx, call, ids, tree);
  if (!body)
    return sendGraphError(
      reply,
      400,
      100,
      "(#100) The after parameter is invalid: cursor not recognised",
    );
  return reply.send(body);
}

async function notFoundCounted(ctx: Ctx, call: GraphCall, id: string) {
  if (!(await ctx.enter(call.req, call.reply, `${prefix(call)}.comments`))) return call.reply;
  return notFound(call.reply, id);
}
