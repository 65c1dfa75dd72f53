import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import type { Ctx } from "../../context.ts";
import { sendGraphError } from "../../errors.ts";
import { checkToken } from "../../tokens.ts";
import { bearer, params } from "../../util.ts";
import { type GraphCall, resolvePrincipal, tokenError } from "./call.ts";
import { commentsEdge } from "./comments.ts";
import { fbAccounts, fbDeauthorize, fbMe, fbMeUnknownEdge } from "./facebook.ts";
import { graphNode, mediaChildren, unknownEdge, userMedia } from "./nodes.ts";
import type { GraphHost } from "./render.ts";
import { GraphFieldError } from "./render.ts";

export type { GraphHost } from "./render.ts";

const VERSION = /^v(\d+)\.0$/;
export const SUPPORTED_VERSIONS = [19, 20, 21, 22, 23, 24, 25, 26];

/** The optional version segment: anything that looks like one (`v…` and a digit) is taken for it. */
const VERSION_SEGMENT = ":version(^v\\d.*)";
const ALL_METHODS: HTTPMethods[] = ["GET", "POST", "DELETE"];
const HOSTED = /^\/graph\.(?:instagram|facebook)\.com\//;

type GraphParams = { version?: string; id?: string; edge?: string; "*"?: string };
type GraphRequest = FastifyRequest<{ Params: GraphParams }>;
export type GraphHandler = (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
type CallHandler = (ctx: Ctx, call: GraphCall) => Promise<FastifyReply>;

/**
 * Graph paths ignore empty segments (`//me`, `me/media/`); the server's `rewriteUrl` passes
 * request URLs through this so the router sees one spelling of each path.
 */
export function canonicalGraphUrl(url: string): string {
  const m = HOSTED.exec(url);
  if (!m) return url;
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const rest = path.slice(m[0].length).split("/").filter(Boolean).join("/");
  return `${m[0]}${rest}${q < 0 ? "" : url.slice(q)}`;
}

/** Answers a version segment Graph does not serve; true when the request may go on. */
function versionAccepted(reply: FastifyReply, version: string | undefined): boolean {
  if (version === undefined) return true;
  const m = VERSION.exec(version);
  if (!m) {
    sendGraphError(reply, 400, 2500, `Unknown path components: /${version}`);
    return false;
  }
  if (!SUPPORTED_VERSIONS.includes(Number(m[1]))) {
    sendGraphError(
      reply,
      400,
      2635,
      `(#2635) You are calling a deprecated version of the Graph API (${version}).`,
    );
    return false;
  }
  return true;
}

/**
 * The Graph API of one host on Fastify's router: every path is registered bare and under a
 * version segment (`/graph.instagram.com/me/media`, `/graph.instagram.com/v25.0/me/media`).
 * `tokenRoutes` are the host's OAuth token endpoints (paths without version), which need no
 * access token.
 */
export function registerGraph(
  app: FastifyInstance,
  ctx: Ctx,
  host: GraphHost,
  tokenRoutes: Record<string, GraphHandler>,
): void {
  const route = (path: string, handler: GraphHandler, methods = ALL_METHODS) => {
    const base = `/graph.${host}.com/`;
    for (const url of [`${base}${path}`, `${base}${VERSION_SEGMENT}${path ? `/${path}` : ""}`]) {
      app.route({
        method: methods,
        url,
        handler: async (req: GraphRequest, reply) => {
          if (!versionAccepted(reply, req.params.version)) return reply;
          return handler(req, reply);
        },
      });
    }
  };

  /** Routes that read data: the access token is checked, then `handler` runs as that principal. */
  const authed = (path: string, handler: CallHandler, methods = ALL_METHODS) =>
    route(
      path,
      async (req, reply) => {
        const p = params(req);
        const check = checkToken(ctx, p.access_token ?? bearer(req), host);
        if (!check.ok) {
          await ctx.enter(req, reply, `${host === "instagram" ? "ig" : "fb"}.auth`);
          if (reply.sent) return reply;
          return tokenError(reply, check.reason, check.token, ctx);
        }
        const { version, id = "", edge = "" } = (req as GraphRequest).params;
        const call: GraphCall = {
          req,
          reply,
          principal: resolvePrincipal(ctx, host, check.token),
          version,
          path: path
            .split("/")
            .filter((seg) => seg !== "*")
            .map((seg) => (seg === ":id" ? id : seg === ":edge" ? edge : seg)),
          params: p,
          tokenFromQuery: p.access_token !== undefined,
        };
        try {
          return await handler(ctx, call);
        } catch (e) {
          if (e instanceof GraphFieldError)
            return sendGraphError(reply, 400, 100, e.message, { type: "OAuthException" });
          throw e;
        }
      },
      methods,
    );

  for (const [path, handler] of Object.entries(tokenRoutes)) route(path, handler);
  route("", async (_req, reply) => sendGraphError(reply, 400, 100, "(#100) Missing node id"));

  if (host === "facebook") {
    authed("me", fbMe);
    authed("me/accounts", fbAccounts);
    authed("me/permissions", fbDeauthorize, ["DELETE"]);
    authed("me/:edge", fbMeUnknownEdge);
  }
  authed(":id", graphNode);
  authed(":id/media", userMedia);
  authed(":id/stories", userMedia);
  authed(":id/children", mediaChildren);
  authed(":id/comments", commentsEdge);
  authed(":id/replies", commentsEdge);
  authed(":id/:edge", unknownEdge);
  authed(":id/:edge/*", async (_ctx, call) => {
    const rest = ((call.req as GraphRequest).params["*"] ?? "").split("/");
    return sendGraphError(call.reply, 400, 2500, `Unknown path components: /${rest.join("/")}`);
  });
}
