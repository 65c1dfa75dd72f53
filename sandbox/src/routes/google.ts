import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as rsaSign,
} from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.ts";
import { SANDBOX_CREDENTIALS } from "../credentials.ts";
import { jpeg } from "../images.ts";
import { googleChooser, googleConsent, providerError } from "../pages.ts";
import { hashString } from "../prng.ts";
import type { GoogleUser, TokenRecord } from "../state.ts";
import { checkToken, issueCode, issueToken } from "../tokens.ts";
import { bearer, form, isHttpUrl, params, withParams } from "../util.ts";

const G = SANDBOX_CREDENTIALS.google;
export const DRIVE_FILE_SCOPE = "https://www.googleapis.com/auth/drive.file";
const EMAIL_SCOPE = "https://www.googleapis.com/auth/userinfo.email";
const PROFILE_SCOPE = "https://www.googleapis.com/auth/userinfo.profile";
const ACCESS_TTL = 3599;
const MAX_REFRESH_TOKENS = 100;
const SIX_MONTHS = 183 * 86_400_000;

const SIGN_IN_TEXT: Record<string, string> = {
  openid: "Associate you with your personal info on Google",
  [EMAIL_SCOPE]: "See your primary Google Account email address",
  [PROFILE_SCOPE]:
    "See your personal info, including any personal info you've made publicly available",
};

export function normalizeScopes(raw: string | undefined): string[] {
  const out: string[] = [];
  for (const s of (raw ?? "").split(/\s+/).filter(Boolean)) {
    const full = s === "email" ? EMAIL_SCOPE : s === "profile" ? PROFILE_SCOPE : s;
    if (!out.includes(full)) out.push(full);
  }
  return out;
}

function googleOAuthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

function signingKey(ctx: Ctx): { privatePem: string; publicPem: string; kid: string } {
  if (!ctx.state.idTokenKey) {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const publicPem = publicKey.export({ type: "spki", format: "pem" }).toString();
    ctx.state.idTokenKey = {
      privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      publicPem,
      kid: createHash("sha1").update(publicPem).digest("hex"),
    };
    ctx.changed();
  }
  return ctx.state.idTokenKey;
}

function idToken(
  ctx: Ctx,
  base: string,
  user: GoogleUser,
  scopes: string[],
  accessToken: string,
): string {
  const key = signingKey(ctx);
  const now = Math.floor(ctx.now() / 1000);
  const header = { alg: "RS256", kid: key.kid, typ: "JWT" };
  const hash = createHash("sha256").update(accessToken).digest();
  const payload: Record<string, unknown> = {
    iss: "https://accounts.google.com",
    azp: G.clientId,
    aud: G.clientId,
    sub: user.sub,
    at_hash: hash.subarray(0, 16).toString("base64url"),
    iat: now,
    exp: now + 3600,
  };
  if (scopes.includes(EMAIL_SCOPE))
    Object.assign(payload, { email: user.email, email_verified: true });
  if (scopes.includes(PROFILE_SCOPE)) {
    Object.assign(payload, {
      name: user.name,
      picture: avatarUrl(base, user),
      given_name: user.givenName,
      family_name: user.familyName,
    });
  }
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const input = `${enc(header)}.${enc(payload)}`;
  const sig = rsaSign("RSA-SHA256", Buffer.from(input), createPrivateKey(key.privatePem));
  return `${input}.${sig.toString("base64url")}`;
}

/**
 * Mints an access token (child of `parent`, the refresh token) and renders the token endpoint's
 * answer; `refreshToken` is included only when the grant issued a new one.
 */
function tokenAnswer(
  ctx: Ctx,
  base: string,
  user: GoogleUser,
  scopes: string[],
  parent: string | undefined,
  refreshToken?: string,
): Record<string, unknown> {
  const access = issueToken(ctx, "google", "access", user.sub, G.clientId, scopes, ACCESS_TTL, {
    parent,
  });
  const body: Record<string, unknown> = {
    access_token: access.token,
    expires_in: ACCESS_TTL,
    scope: scopes.join(" "),
    token_type: "Bearer",
  };
  if (refreshToken) body.refresh_token = refreshToken;
  if (scopes.includes("openid")) body.id_token = idToken(ctx, base, user, scopes, access.token);
  return body;
}

function avatarUrl(base: string, user: GoogleUser): string {
  return `${base}/lh3.googleusercontent.com/a/${user.sub}=s96-c`;
}

function clientAuth(
  req: FastifyRequest,
  p: Record<string, string>,
): { id?: string; secret?: string } {
  const h = req.headers.authorization;
  if (h?.startsWith("Basic ")) {
    const [id, secret] = Buffer.from(h.slice(6), "base64").toString().split(":");
    return { id: decodeURIComponent(id ?? ""), secret: decodeURIComponent(secret ?? "") };
  }
  return { id: p.client_id, secret: p.client_secret };
}

/** Resolves a bearer token for Google APIs; undefined + reason when unusable. */
export function googleAccess(
  ctx: Ctx,
  req: FastifyRequest,
): { ok: true; token: TokenRecord; user: GoogleUser } | { ok: false; reason: string } {
  const value = bearer(req) ?? params(req).access_token;
  const check = checkToken(ctx, value, "google");
  if (!check.ok) return { ok: false, reason: check.reason };
  if (check.token.kind !== "access") return { ok: false, reason: "unknown" };
  const user = ctx.state.googleUsers[check.token.subject];
  if (!user) return { ok: false, reason: "unknown" };
  return { ok: true, token: check.token, user };
}

export function registerGoogle(app: FastifyInstance, ctx: Ctx): void {
  app.get("/accounts.google.com/.well-known/openid-configuration", async (req, reply) => {
    const base = ctx.baseUrl(req);
    return reply.send({
      issuer: "https://accounts.google.com",
      authorization_endpoint: `${base}/accounts.google.com/o/oauth2/v2/auth`,
      token_endpoint: `${base}/oauth2.googleapis.com/token`,
      userinfo_endpoint: `${base}/openidconnect.googleapis.com/v1/userinfo`,
      revocation_endpoint: `${base}/oauth2.googleapis.com/revoke`,
      jwks_uri: `${base}/www.googleapis.com/oauth2/v3/certs`,
      response_types_supported: ["code"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
      scopes_supported: ["openid", "email", "profile"],
      token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
      claims_supported: [
        "aud",
        "email",
        "email_verified",
        "exp",
        "family_name",
        "given_name",
        "iat",
        "iss",
        "name",
        "picture",
        "sub",
      ],
      code_challenge_methods_supported: ["plain", "S256"],
      grant_types_supported: ["authorization_code", "refresh_token"],
    });
  });

  app.get("/www.googleapis.com/oauth2/v3/certs", async (_req, reply) => {
    const key = signingKey(ctx);
    const jwk = createPublicKey(key.publicPem).export({ format: "jwk" });
    return reply.send({ keys: [{ ...jwk, alg: "RS256", use: "sig", kid: key.kid }] });
  });

  const authorize = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!(await ctx.enter(req, reply, "google.authorize"))) return reply;
    const p = params(req);
    const html = (status: number, title: string, message: string) =>
      reply
        .code(status)
        .type("text/html")
        .send(providerError("google", title, message));
    if (p.client_id !== G.clientId)
      return html(
        401,
        "Access blocked: Authorization Error",
        "Error 401: invalid_client — The OAuth client was not found.",
      );
    if (!isHttpUrl(p.redirect_uri))
      return html(
        400,
        "Access blocked: This app's request is invalid",
        "Error 400: redirect_uri_mismatch",
      );
    const scopes = normalizeScopes(p.scope);
    if (scopes.length === 0)
      return html(
        400,
        "Access blocked: Authorization Error",
        "Error 400: invalid_request — Missing required parameter: scope",
      );
    if (p.response_type !== "code")
      return html(
        400,
        "Access blocked: Authorization Error",
        "Error 400: invalid_request — response_type must be code",
      );
    const users = Object.values(ctx.state.googleUsers);
    const chosen = users.find(
      (u) => u.sub === p.authuser || u.email === p.login_hint || u.email === p.authuser,
    );
    const passThrough = {
      client_id: p.client_id,
      redirect_uri: p.redirect_uri,
      response_type: p.response_type,
      scope: p.scope,
      state: p.state,
      access_type: p.access_type,
      prompt: p.prompt,
      include_granted_scopes: p.include_granted_scopes,
      login_hint: p.login_hint,
    };
    if (req.method === "GET") {
      if (!chosen) {
        const accounts = users.map((u) => {
          const u2 = new URL(`${ctx.baseUrl(req)}/accounts.google.com/o/oauth2/v2/auth`);
          for (const [k, v] of Object.entries(passThrough))
            if (v !== undefined) u2.searchParams.set(k, v);
          u2.searchParams.set("authuser", u.sub);
          return { email: u.email, name: u.name, href: `${u2.pathname}${u2.search}` };
        });
        return reply.type("text/html").send(googleChooser({ appName: "Keepsake", accounts }));
      }
      const required = scopes.filter((s) => SIGN_IN_TEXT[s]).map((s) => SIGN_IN_TEXT[s]!);
      return reply.type("text/html").send(
        googleConsent({
          action: "/accounts.google.com/o/oauth2/v2/auth",
          appName: "Keepsake",
          account: chosen,
          fields: { ...passThrough, authuser: chosen.sub },
          requiredScopes: required,
          driveRequested: scopes.includes(DRIVE_FILE_SCOPE),
        }),
      );
    }
    const f = form(req);
    if (f.decision !== "allow" || !chosen) {
      return reply.redirect(withParams(p.redirect_uri, { error: "access_denied", state: p.state }));
    }
    let granted = scopes.filter((s) => s !== DRIVE_FILE_SCOPE || f.drive_file === "on");
    const grantKey = `${chosen.sub}|${G.clientId}`;
    if (p.include_granted_scopes === "true") {
      for (const s of ctx.state.googleGrants[grantKey] ?? [])
        if (!granted.includes(s)) granted.push(s);
    }
    granted = granted.sort();
    ctx.state.googleGrants[grantKey] = granted;
    const code = issueCode(ctx, "google", chosen.sub, G.clientId, p.redirect_uri, granted, 600, {
      offline: p.access_type === "offline",
    });
    return reply.redirect(
      withParams(p.redirect_uri, {
        state: p.state,
        code: code.code,
        scope: granted.join(" "),
        authuser: "0",
        prompt: "consent",
      }),
    );
  };
  app.get("/accounts.google.com/o/oauth2/v2/auth", authorize);
  app.post("/accounts.google.com/o/oauth2/v2/auth", authorize);
  app.get("/accounts.google.com/o/oauth2/auth", authorize);

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

  const userinfo = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!(await ctx.enter(req, reply, "google.userinfo"))) return reply;
    const access = googleAccess(ctx, req);
    if (!access.ok) {
      return reply
        .code(401)
        .header(
          "www-authenticate",
          'Bearer realm="https://accounts.google.com/", error="invalid_token"',
        )
        .send({ error: "invalid_request", error_description: "Invalid Credentials" });
    }
    const { user, token } = access;
    const body: Record<string, unknown> = { sub: user.sub };
    if (token.scopes.includes(PROFILE_SCOPE) || token.scopes.includes("openid")) {
      Object.assign(body, {
        name: user.name,
        given_name: user.givenName,
        family_name: user.familyName,
        picture: avatarUrl(ctx.baseUrl(req), user),
      });
    }
    if (token.scopes.includes(EMAIL_SCOPE))
      Object.assign(body, { email: user.email, email_verified: true });
    return reply.send(body);
  };
  app.get("/openidconnect.googleapis.com/v1/userinfo", userinfo);
  app.post("/openidconnect.googleapis.com/v1/userinfo", userinfo);
  app.get("/www.googleapis.com/oauth2/v3/userinfo", userinfo);

  app.get("/lh3.googleusercontent.com/a/:id", async (req, reply) => {
    const id = (req.params as { id: string }).id.split("=")[0]!;
    const data = await jpeg(96, 96, hashString(id));
    return reply.type("image/jpeg").header("cache-control", "max-age=86400").send(data);
  });
}
