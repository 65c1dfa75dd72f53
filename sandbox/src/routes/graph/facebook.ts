import type { FastifyReply } from "fastify";
import type { Ctx } from "../../context.ts";
import { sendGraphError } from "../../errors.ts";
import type { FbPage } from "../../state.ts";
import { cursorOf, type GraphCall, notFound, pageToken, usageHeaders } from "./call.ts";
import { fieldTree, GraphFieldError } from "./render.ts";

const PAGE_FIELDS = [
  "id",
  "name",
  "category",
  "access_token",
  "tasks",
  "instagram_business_account",
];

/** `GET /me`: the Facebook user node. */
export async function fbMe(ctx: Ctx, call: GraphCall): Promise<FastifyReply> {
  const { reply } = call;
  const user = call.principal.fbUser;
  if (!user) return notFound(call.reply, "me");
  if (!(await ctx.enter(call.req, reply, "fb.me"))) return reply;
  if (!usageHeaders(ctx, call, undefined)) return reply;
  const tree = fieldTree(call.params.fields ?? "id,name");
  const all: Record<string, unknown> = { id: user.id, name: user.name, email: user.email };
  const out: Record<string, unknown> = {};
  for (const key of tree.keys()) {
    if (!(key in all))
      throw new GraphFieldError(
        `(#100) Tried accessing nonexisting field (${key}) on node type (User)`,
      );
    out[key] = all[key];
  }
  return reply.send(out);
}

/** `GET /me/accounts`: the person's Pages, each with a Page token. */
export async function fbAccounts(ctx: Ctx, call: GraphCall): Promise<FastifyReply> {
  const { reply, principal } = call;
  const user = call.principal.fbUser;
  if (!user) return notFound(call.reply, "me");
  if (!(await ctx.enter(call.req, reply, "fb.me.accounts"))) return reply;
  if (!usageHeaders(ctx, call, undefined)) return reply;
  const tree = fieldTree(call.params.fields ?? "id,name,access_token,category");
  const data = user.pages.map((page) => {
    const all: Record<string, unknown> = {
      id: page.id,
      name: page.name,
      category: page.category,
      access_token: pageToken(ctx, principal.token, page.id),
      tasks: ["ADVERTISE", "ANALYZE", "CREATE_CONTENT", "MESSAGING", "MODERATE", "MANAGE"],
    };
    if (page.instagramUserId) all.instagram_business_account = { id: page.instagramUserId };
    const out: Record<string, unknown> = {};
    for (const [key, sub] of tree) {
      if (!PAGE_FIELDS.includes(key)) {
        throw new GraphFieldError(
          `(#100) Tried accessing nonexisting field (${key}) on node type (Page)`,
        );
      }
      if (all[key] === undefined) continue;
      out[key] =
        key === "instagram_business_account" && sub ? { id: page.instagramUserId } : all[key];
    }
    return out;
  });
  const paging =
    data.length > 0
      ? {
          cursors: {
            before: cursorOf(user.pages[0]!.id),
            after: cursorOf(user.pages[user.pages.length - 1]!.id),
          },
        }
      : undefined;
  return reply.send(paging ? { data, paging } : { data });
}

/** `DELETE /me/permissions` de-authorises the app for this person: every token of the pair stops working. */
export async function fbDeauthorize(ctx: Ctx, call: GraphCall): Promise<FastifyReply> {
  const { reply, principal } = call;
  const user = call.principal.fbUser;
  if (!user) return notFound(call.reply, "me");
  if (!(await ctx.enter(call.req, reply, "fb.me.permissions.delete"))) return reply;
  const revoked = { subcode: 458, message: "The user has not authorized application." };
  for (const t of Object.values(ctx.state.tokens)) {
    if (
      t.provider === "facebook" &&
      t.subject === principal.token.subject &&
      t.clientId === principal.token.clientId
    )
      t.revoked = revoked;
  }
  ctx.changed();
  return reply.send({ success: true });
}

/** Any other edge of `me` (including GET/POST `me/permissions`). */
export async function fbMeUnknownEdge(_ctx: Ctx, call: GraphCall): Promise<FastifyReply> {
  const user = call.principal.fbUser;
  if (!user) return notFound(call.reply, "me");
  return sendGraphError(call.reply, 400, 2500, `Unknown path components: /${call.path[1]}`);
}

/** The Page the token's person manages with this id, if any. */
export function fbPage(call: GraphCall, id: string): FbPage | undefined {
  return call.principal.fbUser?.pages.find((p) => p.id === id);
}

/** A Facebook Page node (e.g. `?fields=instagram_business_account`). */
export async function fbPageNode(ctx: Ctx, call: GraphCall, page: FbPage): Promise<FastifyReply> {
  const { reply } = call;
  if (!(await ctx.enter(call.req, reply, "fb.page"))) return reply;
  if (!usageHeaders(ctx, call, undefined)) return reply;
  const out: Record<string, unknown> = {};
  for (const key of fieldTree(call.params.fields ?? "id,name").keys()) {
    if (key === "id") out.id = page.id;
    else if (key === "name") out.name = page.name;
    else if (key === "category") out.category = page.category;
    else if (key === "instagram_business_account") {
      if (page.instagramUserId) out.instagram_business_account = { id: page.instagramUserId };
    } else
      throw new GraphFieldError(
        `(#100) Tried accessing nonexisting field (${key}) on node type (Page)`,
      );
  }
  return reply.send(out);
}
