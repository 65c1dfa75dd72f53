import type { Ctx } from "./context.ts";
import type { AuthCode, TokenKind, TokenProvider, TokenRecord } from "./state.ts";
import { randomId } from "./util.ts";

const PREFIX: Record<TokenProvider, string> = {
  instagram: "IGAA",
  facebook: "EAAB",
  google: "ya29.",
  dropbox: "sl.",
  microsoft: "EwB",
};

export function issueToken(
  ctx: Ctx,
  provider: TokenProvider,
  kind: TokenKind,
  subject: string,
  clientId: string,
  scopes: string[],
  ttlSeconds: number | null,
  extra: Partial<TokenRecord> = {},
): TokenRecord {
  const prefix = kind === "refresh" ? "1//0g" : PREFIX[provider];
  const token = `${prefix}${randomId(kind === "refresh" ? 32 : 48).replace(/[-_]/g, "Z")}`;
  const now = ctx.now();
  const rec: TokenRecord = {
    token,
    provider,
    kind,
    subject,
    clientId,
    scopes,
    issuedAt: now,
    expiresAt: ttlSeconds === null ? null : now + ttlSeconds * 1000,
    ...extra,
  };
  ctx.state.tokens[token] = rec;
  ctx.changed();
  return rec;
}

export function issueCode(
  ctx: Ctx,
  provider: TokenProvider,
  subject: string,
  clientId: string,
  redirectUri: string,
  scopes: string[],
  ttlSeconds: number,
  extra: Partial<AuthCode> = {},
): AuthCode {
  const prefix = provider === "google" ? "4/0A" : "AQ";
  const code = `${prefix}${randomId(36).replace(/[-_]/g, "x")}`;
  const now = ctx.now();
  const rec: AuthCode = {
    code,
    provider,
    subject,
    clientId,
    redirectUri,
    scopes,
    issuedAt: now,
    expiresAt: now + ttlSeconds * 1000,
    used: false,
    ...extra,
  };
  ctx.state.codes[code] = rec;
  ctx.changed();
  return rec;
}

export type TokenCheck =
  | { ok: true; token: TokenRecord }
  | { ok: false; reason: "missing" | "unknown" | "expired" | "revoked"; token?: TokenRecord };

export function checkToken(
  ctx: Ctx,
  value: string | undefined,
  provider: TokenProvider,
): TokenCheck {
  if (!value) return { ok: false, reason: "missing" };
  const token = ctx.state.tokens[value];
  if (!token || token.provider !== provider) return { ok: false, reason: "unknown" };
  if (token.revoked) return { ok: false, reason: "revoked", token };
  if (token.parent) {
    const parent = ctx.state.tokens[token.parent];
    if (parent?.revoked) return { ok: false, reason: "revoked", token };
  }
  if (token.expiresAt !== null && token.expiresAt <= ctx.now())
    return { ok: false, reason: "expired", token };
  return { ok: true, token };
}

export function graphDate(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+0000");
}
