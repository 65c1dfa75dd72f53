import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { sendGraphError } from "../../errors.ts";
import {
  type FbUser,
  type IgAccount,
  type IgMedia,
  type TokenRecord,
  unlisted,
} from "../../state.ts";
import { GraphFieldError, type GraphHost } from "./render.ts";

export interface Principal {
  host: GraphHost;
  token: TokenRecord;
  /** IG accounts this token may read. */
  accounts: IgAccount[];
  igSelf?: IgAccount;
  fbUser?: FbUser;
}

export interface GraphCall {
  req: FastifyRequest;
  reply: FastifyReply;
  principal: Principal;
  version: string | undefined;
  path: string[];
  params: Record<string, string>;
  tokenFromQuery: boolean;
}

export const cursorOf = (id: string) => Buffer.from(`QVFI:${id}`).toString("base64url");
function cursorId(cursor: string): string | undefined {
  const text = Buffer.from(cursor, "base64url").toString();
  return text.startsWith("QVFI:") ? text.slice(5) : undefined;
}

/** Cursor pagination over slots (ghost slots take room but are never returned). */
export function paginate(
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
    .filter((m): m is IgMedia => !unlisted(m))
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

export function usageHeaders(ctx: Ctx, call: GraphCall, account: IgAccount | undefined): boolean {
  const now = ctx.now();
  const key = account?.userId ?? call.principal.token.subject;
  const { hour: hourCalls, accountDay: dayCalls } = ctx.graphCalls.record(now, key);
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

export function tokenError(
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

export function resolvePrincipal(ctx: Ctx, host: GraphHost, token: TokenRecord): Principal {
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

export function findAccount(principal: Principal, id: string): IgAccount | undefined {
  if (id === "me") return principal.igSelf;
  return principal.accounts.find(
    (a) => a.userId === id || (principal.host === "instagram" && a.id === id),
  );
}

export function notFound(reply: FastifyReply, id: string): FastifyReply {
  return sendGraphError(
    reply,
    400,
    100,
    `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { type: "GraphMethodException", subcode: 33 },
  );
}

export function pageToken(ctx: Ctx, userToken: TokenRecord, pageId: string): string {
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
