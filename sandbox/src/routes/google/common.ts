import { createHash, createPrivateKey, generateKeyPairSync, sign as rsaSign } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { SANDBOX_CREDENTIALS } from "../../credentials.ts";
import type { GoogleUser, TokenRecord } from "../../state.ts";
import { checkToken, issueToken } from "../../tokens.ts";
import { bearer, params } from "../../util.ts";

export const G = SANDBOX_CREDENTIALS.google;
export const DRIVE_FILE_SCOPE = "https://www.googleapis.com/auth/drive.file";
export const EMAIL_SCOPE = "https://www.googleapis.com/auth/userinfo.email";
export const PROFILE_SCOPE = "https://www.googleapis.com/auth/userinfo.profile";
export const ACCESS_TTL = 3599;
export const MAX_REFRESH_TOKENS = 100;
export const SIX_MONTHS = 183 * 86_400_000;

export const SIGN_IN_TEXT: Record<string, string> = {
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

export function googleOAuthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

export function signingKey(ctx: Ctx): { privatePem: string; publicPem: string; kid: string } {
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

export function idToken(
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
export function tokenAnswer(
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

export function avatarUrl(base: string, user: GoogleUser): string {
  return `${base}/lh3.googleusercontent.com/a/${user.sub}=s96-c`;
}

export function clientAuth(
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
