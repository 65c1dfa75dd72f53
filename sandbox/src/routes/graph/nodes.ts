import type { FastifyReply } from "fastify";
import type { Ctx } from "../../context.ts";
import { sendGraphError } from "../../errors.ts";
import { type IgAccount, type IgMedia, unlisted } from "../../state.ts";
import { findAccount, type GraphCall, notFound, paginate, usageHeaders } from "./call.ts";
import { fbPage, fbPageNode } from "./facebook.ts";
import { checkFields, fieldTree, MEDIA_FIELDS, renderIgUser, renderMedia } from "./render.ts";

const endpointPrefix = (call: GraphCall) => (call.principal.host === "instagram" ? "ig" : "fb");

/** A media object the token may read, with its owner. */
function ownedMedia(call: GraphCall, ctx: Ctx, id: string): [IgMedia, IgAccount] | undefined {
  const media = ctx.state.media[id];
  const owner =
    media && !unlisted(media)
      ? call.principal.accounts.find((a) => a.id === media.ownerId)
      : undefined;
  return media && owner ? [media, owner] : undefined;
}

/** A media id the token may not read (or that does not exist): counted as a media read. */
async function mediaNotFound(ctx: Ctx, call: GraphCall, id: string): Promise<FastifyReply> {
  if (!(await ctx.enter(call.req, call.reply, `${endpointPrefix(call)}.media.get`)))
    return call.reply;
  return notFound(call.reply, id);
}

/** `/{id}`: a Facebook Page, an Instagram user or an Instagram media object. */
export async function graphNode(ctx: Ctx, call: GraphCall): Promise<FastifyReply> {
  const { reply, principal } = call;
  const id = call.path[0]!;
  const base = ctx.baseUrl(call.req);
  const prefix = endpointPrefix(call);
  if (principal.host === "facebook") {
    const page = fbPage(call, id);
    if (page) return fbPageNode(ctx, call, page);
  }
  const account = findAccount(principal, id);
  if (account) {
    if (!(await ctx.enter(call.req, reply, `${prefix}.${id === "me" ? "me" : "user"}`)))
      return reply;
    if (!usageHeaders(ctx, call, account)) return reply;
    return reply.send(
      renderIgUser(ctx, base, account, fieldTree(call.params.fields), principal.host),
    );
  }
  const found = ownedMedia(call, ctx, id);
  if (!found) return mediaNotFound(ctx, call, id);
  const [media, owner] = found;
  if (!(await ctx.enter(call.req, reply, `${prefix}.media.get`))) return reply;
  if (!usageHeaders(ctx, call, owner)) return reply;
  if (media.productType === "STORY" && media.timestamp <= ctx.now() - 86_400_000)
    return notFound(reply, id);
  return reply.send(
    renderMedia(ctx, base, media, fieldTree(call.params.fields), media.parentId !== undefined),
  );
}

/** `/{id}/{edge}` for an edge the node does not have. */
export async function unknownEdge(ctx: Ctx, call: GraphCall): Promise<FastifyReply> {
  const [id = "", edge] = call.path;
  const node = findAccount(call.principal, id)
    ? "IGUser"
    : ownedMedia(call, ctx, id)
      ? "IGMedia"
      : undefined;
  if (!node) return mediaNotFound(ctx, call, id);
  return sendGraphError(
    call.reply,
    400,
    100,
    `(#100) Tried accessing nonexisting field (${edge}) on node type (${node})`,
  );
}

/** `/{ig-user-id}/media` and `/{ig-user-id}/stories`, cursor-paginated. */
export async function userMedia(ctx: Ctx, call: GraphCall): Promise<FastifyReply> {
  const { reply } = call;
  const [id = "", edge] = call.path;
  const account = findAccount(call.principal, id);
  if (!account) return unknownEdge(ctx, call);
  const endpoint = `${endpointPrefix(call)}.${edge === "media" ? "media.list" : "stories"}`;
  if (!(await ctx.enter(call.req, reply, endpoint))) return reply;
  if (!usageHeaders(ctx, call, account)) return reply;
  if (account.accountType === "PERSONAL")
    return sendGraphError(
      reply,
      400,
      10,
      "(#10) Application does not have permission for this action",
    );
  const tree = fieldTree(call.params.fields);
  checkFields(tree, MEDIA_FIELDS, "IGMedia");
  const base = ctx.baseUrl(call.req);
  const render = (m: IgMedia) => renderMedia(ctx, base, m, tree, false);
  if (edge === "media") return reply.send(paginate(call, ctx, account.media, render));
  // Whether graph.instagram.com serves stories to Instagram Login tokens is undocumented: the
  // control API's switch answers either way (PROVIDERS.md).
  if (call.principal.host === "instagram" && ctx.igLoginStories === "unsupported")
    return notFound(reply, id);
  if (call.principal.host === "instagram" && ctx.igLoginStories === "permission")
    return sendGraphError(
      reply,
      400,
      10,
      "(#10) Application does not have permission for this action",
    );
  const since = ctx.now() - 86_400_000;
  const live = account.stories
    .map((sid) => ctx.state.media[sid]!)
    .filter((s) => s.timestamp > since && s.timestamp <= ctx.now())
    .sort((a, b) => b.timestamp - a.timestamp)
    .map((s) => s.id);
  return reply.send(paginate(call, ctx, live, render));
}

/** `/{ig-media-id}/children`: a carousel's items. */
export async function mediaChildren(ctx: Ctx, call: GraphCall): Promise<FastifyReply> {
  const { reply } = call;
  const id = call.path[0]!;
  const found = findAccount(call.principal, id) ? undefined : ownedMedia(call, ctx, id);
  if (!found) return unknownEdge(ctx, call);
  const [media, owner] = found;
  if (!(await ctx.enter(call.req, reply, `${endpointPrefix(call)}.media.children`))) return reply;
  if (!usageHeaders(ctx, call, owner)) return reply;
  const tree = fieldTree(call.params.fields);
  const base = ctx.baseUrl(call.req);
  return reply.send({
    data: (media.children ?? []).map((cid) =>
      renderMedia(ctx, base, ctx.state.media[cid]!, tree, true),
    ),
  });
}
