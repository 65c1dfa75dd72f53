import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import type { TokenRecord } from "../../state.ts";
import { checkToken, issueToken } from "../../tokens.ts";
import { bearer, params } from "../../util.ts";
import {
  clientAuth,
  EMAIL_SCOPE,
  G,
  googleOAuthError,
  MAX_REFRESH_TOKENS,
  SIX_MONTHS,
  tokenAnswer,
} from "./common.ts";

/** The token endpoint (codes and refresh tokens), revocation and tokeninfo. */
export function registerTokenEndpoints(app: FastifyInstance, ctx: Ctx): void {
  app.post("/oauth2.googleapis.com/token", async (req, reply) => {
    if (!(await ctx.enter(req, reply, "google.token"))) return reply;
    const p = params(req);
    const client = clientAuth(req, p);
    if (client.id !== G.clientId)
      return googleOAuthError(reply, 401, "invalid_client", "The OAuth client was not found.");
    if (client.secret !== G.clientSecret)
      return googleOAuthError(reply, 401, "invalid_client", "Unauthorized");
    const base = ctx.baseUrl(req);
    if (p.grant_type === "authorization_code") {
      const code = ctx.state.codes[p.code ?? ""];
      if (code?.provider !== "google")
        return googleOAuthError(reply, 400, "invalid_grant", "Malformed auth code.");
      if (code.used || code.expiresAt <= ctx.now())
        return googleOAuthError(reply, 400, "invalid_grant", "Bad Request");
      if (code.redirectUri !== p.redirect_uri)
        return googleOAuthError(reply, 400, "redirect_uri_mismatch", "Bad Request");
      code.used = true;
      const user = ctx.state.googleUsers[code.subject]!;
      let refresh: TokenRecord | undefined;
      if (code.offline) {
        refresh = issueToken(ctx, "google", "refresh", user.sub, G.clientId, code.scopes, null);
        // At most 100 live refresh tokens per account and client: the oldest dies silently.
        const live = Object.values(ctx.state.tokens)
          .filter(
            (t) =>
              t.provider === "google" &&
              t.kind === "refresh" &&
              t.subject === user.sub &&
              !t.revoked,
          )
          .sort((a, b) => a.issuedAt - b.issuedAt);
        while (live.length > MAX_REFRESH_TOKENS) {
          const oldest = live.shift()!;
          oldest.revoked = { subcode: 0, message: "Token has been expired or revoked." };
        }
      }
      return reply.send(tokenAnswer(ctx, base, user, code.scopes, refresh?.token, refresh?.token));
    }
    if (p.grant_type === "refresh_token") {
      const rec = ctx.state.tokens[p.refresh_token ?? ""];
      if (rec?.provider !== "google" || rec.kind !== "refresh" || rec.revoked) {
        return googleOAuthError(reply, 400, "invalid_grant", "Token has been expired or revoked.");
      }
      const idle = ctx.now() - (rec.lastUsedAt ?? rec.issuedAt);
      if ((rec.expiresAt !== null && rec.expiresAt <= ctx.now()) || idle > SIX_MONTHS) {
        return googleOAuthError(reply, 400, "invalid_grant", "Token has been expired or revoked.");
      }
      rec.lastUsedAt = ctx.now();
      const user = ctx.state.googleUsers[rec.subject]!;
      return reply.send(tokenAnswer(ctx, base, user, rec.scopes, rec.token));
    }
    return googleOAuthError(
      reply,
      400,
      "unsupported_grant_type",
      `Invalid grant_type: ${p.grant_type ?? ""}`,
    );
  });

  app.post("/oauth2.googleapis.com/revoke", async (req, reply) => {
    if (!(await ctx.enter(req, reply, "google.revoke"))) return reply;
    const value = params(req).token;
    const rec = value ? ctx.state.tokens[value] : undefined;
    if (rec?.provider !== "google" || rec.revoked) {
      return googleOAuthError(reply, 400, "invalid_token", "Token expired or revoked");
    }
    const revoked = { subcode: 0, message: "Token has been expired or revoked." };
    const root = rec.kind === "access" && rec.parent ? ctx.state.tokens[rec.parent] : rec;
    rec.revoked = revoked;
    if (root) {
      root.revoked = revoked;
      for (const t of Object.values(ctx.state.tokens))
        if (t.parent === root.token) t.revoked = revoked;
    }
    delete ctx.state.googleGrants[`${rec.subject}|${rec.clientId}`];
    ctx.changed();
    return reply.send({});
  });

  const tokeninfo = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!(await ctx.enter(req, reply, "google.tokeninfo"))) return reply;
    const check = checkToken(ctx, params(req).access_token ?? bearer(req), "google");
    if (!check.ok) return googleOAuthError(reply, 400, "invalid_token", "Invalid Value");
    const t = check.token;
    const user = ctx.state.googleUsers[t.subject]!;
    const body: Record<string, unknown> = {
      azp: t.clientId,
      aud: t.clientId,
      sub: t.subject,
      scope: t.scopes.join(" "),
      exp: String(Math.floor((t.expiresAt ?? 0) / 1000)),
      expires_in: String(Math.max(0, Math.floor(((t.expiresAt ?? 0) - ctx.now()) / 1000))),
      access_type: "offline",
    };
    if (t.scopes.includes(EMAIL_SCOPE))
      Object.assign(body, { email: user.email, email_verified: "true" });
    return reply.send(body);
  };
  app.get("/oauth2.googleapis.com/tokeninfo", tokeninfo);
  app.post("/oauth2.googleapis.com/tokeninfo", tokeninfo);
}
