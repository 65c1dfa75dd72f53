import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.ts";
import { SANDBOX_CREDENTIALS } from "../credentials.ts";
import { sendGraphError } from "../errors.ts";
import { facebookDialog, instagramAuthorize, providerError } from "../pages.ts";
import { checkToken, issueCode, issueToken } from "../tokens.ts";
import { form, isHttpUrl, params, withParams } from "../util.ts";
import { registerGraph, SUPPORTED_VERSIONS } from "./graph/index.ts";

const IG = SANDBOX_CREDENTIALS.instagram;
const FB = SANDBOX_CREDENTIALS.facebook;
const LONG_TTL = 5_183_944;
const IG_SHORT_TTL = 3600;
const FB_SHORT_TTL = 5400;
const APP_NAME = "Keepsake";

/** The dialog's HTML error page (400), as Instagram and Facebook show one for a bad request. */
function dialogError(
  reply: FastifyReply,
  brand: "instagram" | "facebook",
  message: string,
): FastifyReply {
  return reply
    .code(400)
    .type("text/html")
    .send(providerError(brand, "Error", message));
}

function igOauthError(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(400).send({ error_type: "OAuthException", code: 400, error_message: message });
}

function cannotParseToken(reply: FastifyReply): FastifyReply {
  return sendGraphError(reply, 400, 190, "Invalid OAuth access token - Cannot parse access token");
}

/** Issues a long-lived token for the app of `provider` and answers with it. */
function sendLongToken(
  ctx: Ctx,
  reply: FastifyReply,
  provider: "instagram" | "facebook",
  subject: string,
  scopes: string[],
): FastifyReply {
  const clientId = provider === "instagram" ? IG.clientId : FB.appId;
  const long = issueToken(ctx, provider, "long", subject, clientId, scopes, LONG_TTL);
  return reply.send({ access_token: long.token, token_type: "bearer", expires_in: LONG_TTL });
}

/** The OAuth parameters a consent form carries through to its POST, in this order. */
function dialogFields(
  p: Record<string, string>,
  keys: string[],
): Record<string, string | undefined> {
  return Object.fromEntries(keys.map((k) => [k, p[k]]));
}

export function registerMeta(app: FastifyInstance, ctx: Ctx): void {
  // ---------- Instagram Login ----------
  const igAuthorize = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!(await ctx.enter(req, reply, "ig.authorize"))) return reply;
    const p = params(req);
    if (p.client_id !== IG.clientId) {
      return dialogError(reply, "instagram", "Invalid platform app");
    }
    if (!isHttpUrl(p.redirect_uri)) {
      return dialogError(reply, "instagram", "Invalid redirect_uri");
    }
    const scopes = (p.scope ?? "").split(/[ ,]+/).filter(Boolean);
    if (!scopes.includes("instagram_business_basic") || p.response_type !== "code") {
      return dialogError(reply, "instagram", `Invalid Request: invalid scope or response_type`);
    }
    if (req.method === "GET") {
      const accounts = Object.values(ctx.state.igAccounts).map((a) => ({
        value: a.id,
        title: `@${a.username}`,
        subtitle: `${a.name} · ${a.accountType === "MEDIA_CREATOR" ? "Creator" : a.accountType === "BUSINESS" ? "Business" : "Personal"} account`,
        initial: a.username[0]!.toUpperCase(),
      }));
      return reply.type("text/html").send(
        instagramAuthorize({
          action: "/www.instagram.com/oauth/authorize",
          appName: APP_NAME,
          accounts,
          scopes,
          fields: dialogFields(p, ["client_id", "redirect_uri", "response_type", "scope", "state"]),
        }),
      );
    }
    const f = form(req);
    if (f.decision !== "allow") {
      return reply.redirect(
        withParams(p.redirect_uri, {
          error: "access_denied",
          error_reason: "user_denied",
          error_description: "The user denied your request.",
          state: p.state,
        }),
      );
    }
    const account = ctx.state.igAccounts[f.account ?? ""];
    if (!account) return dialogError(reply, "instagram", "Choose an account");
    const code = issueCode(ctx, "instagram", account.id, IG.clientId, p.redirect_uri, scopes, 3600);
    return reply.redirect(withParams(p.redirect_uri, { code: code.code, state: p.state }, "_"));
  };
  app.get("/www.instagram.com/oauth/authorize", igAuthorize);
  app.post("/www.instagram.com/oauth/authorize", igAuthorize);

  app.post("/api.instagram.com/oauth/access_token", async (req, reply) => {
    if (!(await ctx.enter(req, reply, "ig.token"))) return reply;
    const p = form(req);
    if (p.client_id !== IG.clientId) return igOauthError(reply, "Invalid platform app");
    if (p.client_secret !== IG.clientSecret)
      return igOauthError(reply, "Error validating client secret.");
    if (p.grant_type !== "authorization_code") return igOauthError(reply, "Invalid grant_type");
    const code = ctx.state.codes[(p.code ?? "").replace(/#_$/, "")];
    if (code?.provider !== "instagram") return igOauthError(reply, "Invalid authorization code");
    if (code.used) return igOauthError(reply, "This authorization code has been used");
    if (code.expiresAt <= ctx.now())
      return igOauthError(reply, "This authorization code has expired");
    if (code.redirectUri !== p.redirect_uri) {
      return igOauthError(
        reply,
        "Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request",
      );
    }
    code.used = true;
    const token = issueToken(
      ctx,
      "instagram",
      "short",
      code.subject,
      IG.clientId,
      code.scopes,
      IG_SHORT_TTL,
    );
    const body = {
      access_token: token.token,
      user_id: Number(code.subject),
      permissions: code.scopes.join(","),
    };
    return reply.send(ctx.igTokenShape === "wrapped" ? { data: [body] } : body);
  });

  // ---------- Facebook Login ----------
  const fbDialog = async (
    req: FastifyRequest<{ Params: { version: string } }>,
    reply: FastifyReply,
  ) => {
    if (!(await ctx.enter(req, reply, "fb.dialog"))) return reply;
    const p = params(req);
    const version = req.params.version;
    if (!/^v\d+\.0$/.test(version) || !SUPPORTED_VERSIONS.includes(Number(version.slice(1, -2)))) {
      return dialogError(reply, "facebook", `Unsupported Graph version ${version}`);
    }
    if (p.client_id !== FB.appId) {
      return dialogError(
        reply,
        "facebook",
        "Invalid App ID: The provided app ID does not look like a valid app ID.",
      );
    }
    if (!isHttpUrl(p.redirect_uri)) {
      return dialogError(
        reply,
        "facebook",
        "URL Blocked: This redirect failed because the redirect URI is not whitelisted.",
      );
    }
    const scopes = (p.scope ?? "").split(/[ ,]+/).filter(Boolean);
    if (req.method === "GET") {
      const users = Object.values(ctx.state.fbUsers).map((u) => ({
        value: u.id,
        title: u.name,
        subtitle:
          u.pages.length === 0
            ? "No Facebook Page"
            : u.pages
                .map((pg) => `${pg.name}${pg.instagramUserId ? " (Instagram linked)" : ""}`)
                .join(", "),
        initial: u.name[0]!,
      }));
      return reply.type("text/html").send(
        facebookDialog({
          action: `/www.facebook.com/${version}/dialog/oauth`,
          appName: APP_NAME,
          users,
          scopes: scopes.length ? scopes : p.config_id ? [`configuration ${p.config_id}`] : [],
          fields: dialogFields(p, [
            "client_id",
            "redirect_uri",
            "response_type",
            "scope",
            "config_id",
            "state",
          ]),
        }),
      );
    }
    const f = form(req);
    if (f.decision !== "allow") {
      return reply.redirect(
        withParams(
          p.redirect_uri,
          {
            error: "access_denied",
            error_code: "200",
            error_description: "Permissions error",
            error_reason: "user_denied",
            state: p.state,
          },
          "_=_",
        ),
      );
    }
    const user = ctx.state.fbUsers[f.user ?? ""];
    if (!user) return dialogError(reply, "facebook", "Choose an account");
    const code = issueCode(ctx, "facebook", user.id, FB.appId, p.redirect_uri, scopes, 600);
    return reply.redirect(withParams(p.redirect_uri, { code: code.code, state: p.state }, "_=_"));
  };
  app.get("/www.facebook.com/:version/dialog/oauth", fbDialog);
  app.post("/www.facebook.com/:version/dialog/oauth", fbDialog);

  // ---------- Graph token endpoints (routes of their own, before the Graph node routes) ----------
  registerGraph(app, ctx, "instagram", {
    access_token: async (req, reply) => {
      if (!(await ctx.enter(req, reply, "ig.exchange"))) return reply;
      const p = params(req);
      if (p.grant_type !== "ig_exchange_token")
        return sendGraphError(reply, 400, 100, "Unsupported grant type");
      if (p.client_secret !== IG.clientSecret)
        return sendGraphError(reply, 400, 101, "Error validating client secret.");
      const check = checkToken(ctx, p.access_token, "instagram");
      if (!check.ok) return cannotParseToken(reply);
      if (check.token.kind !== "short")
        return sendGraphError(
          reply,
          400,
          452,
          "Session key invalid. This token is already long-lived.",
        );
      return sendLongToken(ctx, reply, "instagram", check.token.subject, check.token.scopes);
    },
    refresh_access_token: async (req, reply) => {
      if (!(await ctx.enter(req, reply, "ig.refresh"))) return reply;
      const p = params(req);
      if (p.grant_type !== "ig_refresh_token")
        return sendGraphError(reply, 400, 100, "Unsupported grant type");
      const check = checkToken(ctx, p.access_token, "instagram");
      if (!check.ok) {
        if (check.reason === "expired") {
          return sendGraphError(
            reply,
            400,
            190,
            "Error validating access token: Session has expired.",
            { subcode: 463 },
          );
        }
        return cannotParseToken(reply);
      }
      if (check.token.kind !== "long")
        return sendGraphError(reply, 400, 10, "(#10) Only long-lived tokens can be refreshed");
      if (ctx.now() - check.token.issuedAt < 86_400_000) {
        return sendGraphError(
          reply,
          400,
          10,
          "(#10) The access token can only be refreshed once it is at least 24 hours old",
        );
      }
      return sendLongToken(ctx, reply, "instagram", check.token.subject, check.token.scopes);
    },
  });

  registerGraph(app, ctx, "facebook", {
    "oauth/access_token": async (req, reply) => {
      if (!(await ctx.enter(req, reply, "fb.token"))) return reply;
      const p = params(req);
      if (p.client_id !== FB.appId)
        return sendGraphError(
          reply,
          400,
          101,
          "Error validating application. Invalid application ID.",
        );
      if (p.client_secret !== FB.appSecret)
        return sendGraphError(reply, 400, 1, "Error validating client secret.");
      if (p.grant_type === "fb_exchange_token") {
        const check = checkToken(ctx, p.fb_exchange_token, "facebook");
        if (!check.ok) return cannotParseToken(reply);
        return sendLongToken(ctx, reply, "facebook", check.token.subject, check.token.scopes);
      }
      const code = ctx.state.codes[p.code ?? ""];
      if (code?.provider !== "facebook")
        return sendGraphError(reply, 400, 100, "Invalid verification code format.");
      if (code.used)
        return sendGraphError(reply, 400, 100, "This authorization code has been used.", {
          subcode: 36009,
        });
      if (code.expiresAt <= ctx.now()) {
        return sendGraphError(reply, 400, 100, "This authorization code has expired.", {
          subcode: 36007,
        });
      }
      if (code.redirectUri !== p.redirect_uri) {
        return sendGraphError(
          reply,
          400,
          100,
          "Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request",
          { subcode: 36008 },
        );
      }
      code.used = true;
      const token = issueToken(
        ctx,
        "facebook",
        "short",
        code.subject,
        FB.appId,
        code.scopes,
        FB_SHORT_TTL,
      );
      return reply.send({
        access_token: token.token,
        token_type: "bearer",
        expires_in: FB_SHORT_TTL,
      });
    },
  });
}
