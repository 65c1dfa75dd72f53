import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.ts";
import { sendGraphError } from "../context.ts";
import { FieldSyntaxError, type FieldTree, parseFields } from "../fields.ts";
import type { FbUser, IgAccount, IgMedia, TokenRecord } from "../state.ts";
import { checkToken, graphDate } from "../tokens.ts";
import { bearer, params } from "../util.ts";
import { cdnUrl } from "./cdn.ts";

export type GraphHost = "instagram" | "facebook";

const VERSION = /^v(\d+)\.0$/;
export const SUPPORTED_VERSIONS = [19, 20, 21, 22, 23, 24, 25, 26];

interface Principal {
  host: GraphHost;
  token: TokenRecord;
  /** IG accounts this token may read. */
  accounts: IgAccount[];
  igSelf?: IgAccount;
  fbUser?: FbUser;
}

interface GraphCall {
  req: FastifyRequest;
  reply: FastifyReply;
  principal: Principal;
  version: string | undefined;
  path: string[];
  params: Record<string, string>;
  tokenFromQuery: boolean;
}

const MEDIA_FIELDS = new Set([
  "id",
  "caption",
  "media_type",
  "media_product_type",
  "media_url",
  "thumbnail_url",
  "permalink",
  "shortcode",
  "timestamp",
  "like_count",
  "comments_count",
  "username",
  "owner",
  "is_comment_enabled",
  "is_shared_to_feed",
  "children",
]);
const CHILD_FIELDS = new Set([
  "id",
  "media_type",
  "media_url",
  "thumbnail_url",
  "permalink",
  "shortcode",
  "timestamp",
  "username",
  "owner",
]);
const IG_USER_FIELDS = new Set([
  "id",
  "user_id",
  "ig_id",
  "username",
  "name",
  "account_type",
  "profile_picture_url",
  "followers_count",
  "follows_count",
  "media_count",
  "biography",
  "website",
]);

class GraphFieldError extends Error {}

function fieldTree(text: string | undefined): FieldTree {
  if (!text) return new Map([["id", null]]);
  try {
    return parseFields(text, "{", "}");
  } catch (e) {
    if (e instanceof FieldSyntaxError)
      throw new GraphFieldError(`(#100) Syntax error in fields: ${e.message}`);
    throw e;
  }
}

function checkFields(tree: FieldTree, allowed: Set<string>, node: string): void {
  for (const key of tree.keys()) {
    if (!allowed.has(key))
      throw new GraphFieldError(
        `(#100) Tried accessing nonexisting field (${key}) on node type (${node})`,
      );
  }
}

function permalink(media: IgMedia, account: IgAccount): string {
  if (media.productType === "STORY")
    return `https://instagram.com/stories/${account.username}/${media.id}`;
  const kind = media.productType === "REELS" ? "reel" : "p";
  return `https://www.instagram.com/${kind}/${media.shortcode}/`;
}

function mediaUrl(ctx: Ctx, base: string, media: IgMedia): string | undefined {
  if (media.withheld) return undefined;
  if (media.mediaType === "CAROUSEL_ALBUM") {
    const first = media.children?.[0] ? ctx.state.media[media.children[0]] : undefined;
    return first ? mediaUrl(ctx, base, first) : undefined;
  }
  return media.asset ? cdnUrl(ctx, base, media.id, media.asset) : undefined;
}

function renderMedia(
  ctx: Ctx,
  base: string,
  media: IgMedia,
  tree: FieldTree,
  child: boolean,
): Record<string, unknown> {
  checkFields(tree, child ? CHILD_FIELDS : MEDIA_FIELDS, child ? "IGMediaChild" : "IGMedia");
  const account = ctx.state.igAccounts[media.ownerId]!;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    switch (key) {
      case "id":
        out.id = media.id;
        break;
      case "caption":
        if (media.caption !== undefined) out.caption = media.caption;
        break;
      case "media_type":
        out.media_type = media.mediaType;
        break;
      case "media_product_type":
        if (media.productType) out.media_product_type = media.productType;
        break;
      case "media_url": {
        const url = mediaUrl(ctx, base, media);
        if (url) out.media_url = url;
        break;
      }
      case "thumbnail_url":
        if (media.mediaType === "VIDEO" && media.thumbnail)
          out.thumbnail_url = cdnUrl(ctx, base, media.id, media.thumbnail);
        break;
      case "permalink":
        out.permalink = permalink(media, account);
        break;
      case "shortcode":
        out.shortcode = media.shortcode;
        break;
      case "timestamp":
        out.timestamp = graphDate(media.timestamp);
        break;
      case "like_count":
        if (media.likeCount !== undefined && media.productType !== "STORY")
          out.like_count = media.likeCount;
        break;
      case "comments_count":
        if (media.productType !== "STORY") out.comments_count = media.commentsCount;
        break;
      case "username":
        out.username = account.username;
        break;
      case "owner":
        out.owner = { id: account.userId };
        break;
      case "is_comment_enabled":
        out.is_comment_enabled = true;
        break;
      case "is_shared_to_feed":
        if (media.productType === "REELS") out.is_shared_to_feed = true;
        break;
      case "children": {
        if (media.mediaType !== "CAROUSEL_ALBUM") break;
        const childTree = sub ?? new Map([["id", null]]);
        out.children = {
          data: (media.children ?? []).map((id) =>
            renderMedia(ctx, base, ctx.state.media[id]!, childTree, true),
          ),
        };
        break;
      }
    }
  }
  return out;
}

function renderIgUser(
  ctx: Ctx,
  base: string,
  account: IgAccount,
  tree: FieldTree,
  host: GraphHost,
): Record<string, unknown> {
  checkFields(tree, IG_USER_FIELDS, host === "instagram" ? "User" : "IGUser");
  const out: Record<string, unknown> = {};
  for (const key of tree.keys()) {
    switch (key) {
      case "id":
        out.id = host === "instagram" ? account.id : account.userId;
        break;
      case "user_id":
        out.user_id = account.userId;
        break;
      case "ig_id":
        out.ig_id = Number(account.id.slice(-10));
        break;
      case "username":
        out.username = account.username;
        break;
      case "name":
        out.name = account.name;
        break;
      case "account_type":
        if (host === "instagram") out.account_type = account.accountType;
        break;
      case "profile_picture_url":
        out.profile_picture_url = cdnUrl(ctx, base, account.userId, account.avatar);
        break;
      case "followers_count":
        out.followers_count = account.followersCount;
        break;
      case "follows_count":
        out.follows_count = account.followsCount;
        break;
      case "media_count":
        out.media_count = account.media.filter((id) => !ctx.state.media[id]?.ghost).length;
        break;
      case "biography":
        out.biography = account.biography;
        break;
      case "website":
        out.website = account.website;
        break;
    }
  }
  return out;
}

const cursorOf = (id: string) => Buffer.from(`QVFI:${id}`).toString("base64url");
function cursorId(cursor: string): string | undefined {
  const text = Buffer.from(cursor, "base64url").toString();
  return text.startsWith("QVFI:") ? text.slice(5) : undefined;
}

/** Cursor pagination over slots (ghost slots take room but are never returned). */
function paginate(
  call: GraphCall,
  ctx: Ctx,
  slots: string[],
  render: (m: IgMedia) => Record<string, unknown>,
): Record<string, unknown> {
  const p = call.params;
  let limit = p.limit ? Number(p.limit) : 25;
  if (!Number.isFinite(limit) || limit < 1) limit = 25;
  limit = Math.min(Math.floor(limit), 100);
  let start = 0;
  let end: number;
  if (p.after) {
    const id = cursorId(p.after);
    const at = id ? slots.indexOf(id) : -1;
    if (at < 0)
      throw new GraphFieldError("(#100) The after parameter is invalid: cursor not recognised");
    start = at + 1;
    end = Math.min(slots.length, start + limit);
  } else if (p.before) {
    const id = cursorId(p.before);
    const at = id ? slots.indexOf(id) : -1;
    if (at < 0)
      throw new GraphFieldError("(#100) The before parameter is invalid: cursor not recognised");
    end = at;
    start = Math.max(0, end - limit);
  } else {
    end = Math.min(slots.length, limit);
  }
  const slice = slots.slice(start, end);
  const data = slice
    .map((id) => ctx.state.media[id])
    .filter((m): m is IgMedia => m !== undefined && !m.ghost)
    .map(render);
  if (slice.length === 0) return { data };
  const cursors = { before: cursorOf(slice[0]!), after: cursorOf(slice[slice.length - 1]!) };
  const paging: Record<string, unknown> = { cursors };
  const link = (extra: Record<string, string>) => {
    const u = new URL(
      `${ctx.baseUrl(call.req)}/graph.${call.principal.host}.com/${call.version ? `${call.version}/` : ""}${call.path.join("/")}`,
    );
    for (const [k, v] of Object.entries(call.params)) {
      if (k === "after" || k === "before") continue;
      if (k === "access_token" && !call.tokenFromQuery) continue;
      u.searchParams.set(k, v);
    }
    u.searchParams.set("limit", String(limit));
    for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
    return u.toString();
  };
  if (end < slots.length) paging.next = link({ after: cursors.after });
  if (start > 0) paging.previous = link({ before: cursors.before });
  return { data, paging };
}

function usageHeaders(ctx: Ctx, call: GraphCall, account: IgAccount | undefined): boolean {
  const now = ctx.now();
  const key = account?.userId ?? call.principal.token.subject;
  ctx.graphCalls.push({ at: now, account: key });
  ctx.graphCalls = ctx.graphCalls.filter((c) => c.at > now - 86_400_000);
  const hourCalls = ctx.graphCalls.filter((c) => c.at > now - 3_600_000).length;
  const dayCalls = ctx.graphCalls.filter((c) => c.account === key).length;
  const app = Math.min(
    100,
    ctx.usage.appCallCount ?? Math.floor((hourCalls * 100) / ctx.appBudgetPerHour),
  );
  const buc = Math.min(
    100,
    ctx.usage.bucCallCount ?? Math.floor((dayCalls * 100) / ctx.bucBudgetPerDay),
  );
  const regain = buc >= 100 ? (ctx.usage.regainMinutes ?? 60) : 0;
  call.reply.header(
    "x-app-usage",
    JSON.stringify({
      call_count: app,
      total_cputime: Math.floor(app / 2),
      total_time: Math.floor(app / 2),
    }),
  );
  call.reply.header(
    "x-business-use-case-usage",
    JSON.stringify({
      [key]: [
        {
          type: "instagram",
          call_count: buc,
          total_cputime: Math.floor(buc / 3),
          total_time: Math.floor(buc / 3),
          estimated_time_to_regain_access: regain,
        },
      ],
    }),
  );
  if (app >= 100) {
    sendGraphError(call.reply, 403, 4, "(#4) Application request limit reached", {
      transient: true,
    });
    return false;
  }
  if (buc >= 100) {
    sendGraphError(
      call.reply,
      403,
      80002,
      "(#80002) There have been too many calls to this Instagram account. Wait a bit and try again.",
      {
        type: "IGApiException",
      },
    );
    return false;
  }
  return true;
}

function tokenError(
  reply: FastifyReply,
  reason: string,
  token: TokenRecord | undefined,
  ctx: Ctx,
): FastifyReply {
  if (reason === "missing") {
    return sendGraphError(
      reply,
      400,
      2500,
      "An active access token must be used to query information about the current user.",
      {
        type: "OAuthException",
      },
    );
  }
  if (reason === "unknown")
    return sendGraphError(
      reply,
      400,
      190,
      "Invalid OAuth access token - Cannot parse access token",
    );
  if (reason === "revoked" && token?.revoked) {
    return sendGraphError(reply, 400, 190, token.revoked.message, {
      subcode: token.revoked.subcode,
    });
  }
  const when = new Date(token?.expiresAt ?? ctx.now()).toUTCString();
  return sendGraphError(
    reply,
    400,
    190,
    `Error validating access token: Session has expired on ${when}. The current time is ${new Date(ctx.now()).toUTCString()}.`,
    { subcode: 463 },
  );
}

function resolvePrincipal(ctx: Ctx, host: GraphHost, token: TokenRecord): Principal {
  if (host === "instagram") {
    const account = ctx.state.igAccounts[token.subject];
    return { host, token, accounts: account ? [account] : [], igSelf: account };
  }
  const user = ctx.state.fbUsers[token.subject];
  const pages = (user?.pages ?? []).filter((p) => !token.pageId || p.id === token.pageId);
  const accounts = pages
    .map((p) => Object.values(ctx.state.igAccounts).find((a) => a.userId === p.instagramUserId))
    .filter((a): a is IgAccount => a !== undefined);
  return { host, token, accounts, fbUser: user };
}

function findAccount(principal: Principal, id: string): IgAccount | undefined {
  if (id === "me") return principal.igSelf;
  return principal.accounts.find(
    (a) => a.userId === id || (principal.host === "instagram" && a.id === id),
  );
}

function notFound(reply: FastifyReply, id: string): FastifyReply {
  return sendGraphError(
    reply,
    400,
    100,
    `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { type: "GraphMethodException", subcode: 33 },
  );
}

async function handleGraph(ctx: Ctx, call: GraphCall): Promise<FastifyReply> {
  const { reply, principal, path } = call;
  const prefix = principal.host === "instagram" ? "ig" : "fb";
  const [id = "", edge, ...rest] = path;
  if (rest.length > 0)
    return sendGraphError(reply, 400, 2500, `Unknown path components: /${rest.join("/")}`);
  const base = ctx.baseUrl(call.req);

  // Facebook user node and its pages.
  if (principal.host === "facebook" && id === "me") {
    const user = principal.fbUser;
    if (!user) return notFound(reply, id);
    if (edge === "permissions" && call.req.method === "DELETE") {
      // De-authorises the app for this person: every token of the pair stops working.
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
    if (!edge) {
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
    if (edge === "accounts") {
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
          if (
            ![
              "id",
              "name",
              "category",
              "access_token",
              "tasks",
              "instagram_business_account",
            ].includes(key)
          ) {
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
    return sendGraphError(reply, 400, 2500, `Unknown path components: /${edge}`);
  }

  // Facebook page node (e.g. ?fields=instagram_business_account).
  if (principal.host === "facebook" && !edge) {
    const page = principal.fbUser?.pages.find((p) => p.id === id);
    if (page) {
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
  }

  const account = findAccount(principal, id);
  if (account) {
    const personal = account.accountType === "PERSONAL";
    if (!edge) {
      if (!(await ctx.enter(call.req, reply, `${prefix}.${id === "me" ? "me" : "user"}`)))
        return reply;
      if (!usageHeaders(ctx, call, account)) return reply;
      return reply.send(
        renderIgUser(ctx, base, account, fieldTree(call.params.fields), principal.host),
      );
    }
    if (edge === "media" || edge === "stories") {
      const endpoint = `${prefix}.${edge === "media" ? "media.list" : "stories"}`;
      if (!(await ctx.enter(call.req, reply, endpoint))) return reply;
      if (!usageHeaders(ctx, call, account)) return reply;
      if (personal)
        return sendGraphError(
          reply,
          400,
          10,
          "(#10) Application does not have permission for this action",
        );
      const tree = fieldTree(call.params.fields);
      checkFields(tree, MEDIA_FIELDS, "IGMedia");
      const render = (m: IgMedia) => renderMedia(ctx, base, m, tree, false);
      if (edge === "media") return reply.send(paginate(call, ctx, account.media, render));
      const since = ctx.now() - 86_400_000;
      const live = account.stories
        .map((sid) => ctx.state.media[sid]!)
        .filter((s) => s.timestamp > since && s.timestamp <= ctx.now())
        .sort((a, b) => b.timestamp - a.timestamp)
        .map((s) => s.id);
      return reply.send(paginate(call, ctx, live, render));
    }
    return sendGraphError(
      reply,
      400,
      100,
      `(#100) Tried accessing nonexisting field (${edge}) on node type (IGUser)`,
    );
  }

  const media = ctx.state.media[id];
  const owner =
    media && !media.ghost ? principal.accounts.find((a) => a.id === media.ownerId) : undefined;
  if (!media || !owner) {
    if (!(await ctx.enter(call.req, reply, `${prefix}.media.get`))) return reply;
    return notFound(reply, id);
  }
  if (!edge) {
    if (!(await ctx.enter(call.req, reply, `${prefix}.media.get`))) return reply;
    if (!usageHeaders(ctx, call, owner)) return reply;
    if (media.productType === "STORY" && media.timestamp <= ctx.now() - 86_400_000)
      return notFound(reply, id);
    return reply.send(
      renderMedia(ctx, base, media, fieldTree(call.params.fields), media.parentId !== undefined),
    );
  }
  if (edge === "children") {
    if (!(await ctx.enter(call.req, reply, `${prefix}.media.children`))) return reply;
    if (!usageHeaders(ctx, call, owner)) return reply;
    const tree = fieldTree(call.params.fields);
    return reply.send({
      data: (media.children ?? []).map((cid) =>
        renderMedia(ctx, base, ctx.state.media[cid]!, tree, true),
      ),
    });
  }
  return sendGraphError(
    reply,
    400,
    100,
    `(#100) Tried accessing nonexisting field (${edge}) on node type (IGMedia)`,
  );
}

function pageToken(ctx: Ctx, userToken: TokenRecord, pageId: string): string {
  const existing = Object.values(ctx.state.tokens).find(
    (t) => t.kind === "page" && t.parent === userToken.token && t.pageId === pageId,
  );
  if (existing) return existing.token;
  const token = `EAAB${Buffer.from(`${userToken.token}:${pageId}`).toString("base64url").slice(0, 60)}P${pageId.slice(-4)}`;
  ctx.state.tokens[token] = {
    token,
    provider: "facebook",
    kind: "page",
    subject: userToken.subject,
    clientId: userToken.clientId,
    scopes: userToken.scopes,
    issuedAt: ctx.now(),
    expiresAt: userToken.kind === "long" ? null : userToken.expiresAt,
    parent: userToken.token,
    pageId,
  };
  ctx.changed();
  return token;
}

/** Graph API dispatcher for both hosts; OAuth token endpoints are registered separately. */
export function registerGraph(
  app: FastifyInstance,
  ctx: Ctx,
  host: GraphHost,
  special: (
    segments: string[],
    req: FastifyRequest,
    reply: FastifyReply,
  ) => Promise<FastifyReply | undefined>,
): void {
  const prefix = `/graph.${host}.com/`;
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    let segments = req.url
      .split("?")[0]!
      .slice(prefix.length)
      .split("/")
      .filter(Boolean)
      .map(decodeURIComponent);
    let version: string | undefined;
    const m = segments[0] ? VERSION.exec(segments[0]) : null;
    if (m) {
      if (!SUPPORTED_VERSIONS.includes(Number(m[1]))) {
        return sendGraphError(
          reply,
          400,
          2635,
          `(#2635) You are calling a deprecated version of the Graph API (${segments[0]}).`,
        );
      }
      version = segments[0];
      segments = segments.slice(1);
    } else if (segments[0]?.startsWith("v") && /^v\d/.test(segments[0])) {
      return sendGraphError(reply, 400, 2500, `Unknown path components: /${segments[0]}`);
    }
    const handled = await special(segments, req, reply);
    if (handled) return handled;
    if (segments.length === 0) return sendGraphError(reply, 400, 100, "(#100) Missing node id");
    const p = params(req);
    const value = p.access_token ?? bearer(req);
    const check = checkToken(ctx, value, host);
    if (!check.ok) {
      await ctx.enter(req, reply, `${host === "instagram" ? "ig" : "fb"}.auth`);
      if (reply.sent) return reply;
      return tokenError(reply, check.reason, check.token, ctx);
    }
    const principal = resolvePrincipal(ctx, host, check.token);
    try {
      return await handleGraph(ctx, {
        req,
        reply,
        principal,
        version,
        path: segments,
        params: p,
        tokenFromQuery: p.access_token !== undefined,
      });
    } catch (e) {
      if (e instanceof GraphFieldError)
        return sendGraphError(reply, 400, 100, e.message, { type: "OAuthException" });
      throw e;
    }
  };
  app.get(`${prefix}*`, handler);
  app.post(`${prefix}*`, handler);
  app.delete(`${prefix}*`, handler);
}
