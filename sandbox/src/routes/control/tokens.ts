import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Ctx } from "../../context.ts";
import type { TokenRecord } from "../../state.ts";
import { CONTROL as c, handle } from "./handle.ts";
import { findAccount } from "./instagram.ts";

export const tokenSelector = z.object({
  token: z.string().optional(),
  instagram_user_id: z.string().optional(),
  facebook_user_id: z.string().optional(),
  google_email: z.string().optional(),
  /** A Dropbox demo account's or a Microsoft demo user's e-mail address. */
  dropbox_email: z.string().optional(),
  microsoft_email: z.string().optional(),
  subcode: z.number().int().optional(),
  message: z.string().optional(),
});

export function selectTokens(ctx: Ctx, sel: z.infer<typeof tokenSelector>): TokenRecord[] {
  const all = Object.values(ctx.state.tokens);
  if (sel.token) return all.filter((t) => t.token === sel.token);
  if (sel.instagram_user_id) {
    const account = findAccount(ctx, sel.instagram_user_id);
    return all.filter((t) => t.provider === "instagram" && t.subject === account?.id);
  }
  if (sel.facebook_user_id)
    return all.filter((t) => t.provider === "facebook" && t.subject === sel.facebook_user_id);
  if (sel.google_email) {
    const user = Object.values(ctx.state.googleUsers).find((u) => u.email === sel.google_email);
    return all.filter((t) => t.provider === "google" && t.subject === user?.sub);
  }
  if (sel.dropbox_email) {
    const accounts = Object.values(ctx.state.dropbox?.accounts ?? {});
    const account = accounts.find((a) => a.email === sel.dropbox_email);
    return all.filter((t) => t.provider === "dropbox" && t.subject === account?.accountId);
  }
  if (sel.microsoft_email) {
    const users = Object.values(ctx.state.onedrive?.users ?? {});
    const user = users.find((u) => u.email === sel.microsoft_email);
    return all.filter((t) => t.provider === "microsoft" && t.subject === user?.id);
  }
  return [];
}

/** Lists tokens, and expires or revokes the ones a selector picks. */
export function registerTokenControl(app: FastifyInstance, ctx: Ctx): void {
  app.get(`${c}/tokens`, async () => ({
    tokens: Object.values(ctx.state.tokens).map((t) => ({
      token: t.token,
      provider: t.provider,
      kind: t.kind,
      subject: t.subject,
      scopes: t.scopes,
      issued_at: new Date(t.issuedAt).toISOString(),
      expires_at: t.expiresAt === null ? null : new Date(t.expiresAt).toISOString(),
      revoked: t.revoked !== undefined,
    })),
  }));
  app.post(
    `${c}/tokens/expire`,
    handle(tokenSelector, (b) => {
      const tokens = selectTokens(ctx, b);
      for (const t of tokens) t.expiresAt = ctx.now() - 1000;
      ctx.changed();
      return { expired: tokens.length };
    }),
  );
  app.post(
    `${c}/tokens/revoke`,
    handle(tokenSelector, (b) => {
      const tokens = selectTokens(ctx, b);
      const subcode = b.subcode ?? 458;
      const message =
        b.message ??
        (subcode === 460
          ? "Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons."
          : "Error validating access token: The user has not authorized application.");
      for (const t of tokens)
        t.revoked = {
          subcode,
          message: t.provider === "google" ? "Token has been expired or revoked." : message,
        };
      ctx.changed();
      return { revoked: tokens.length };
    }),
  );
  /** Undoes a revoke: the tokens a selector picks are accepted again (a test cleans up). */
  app.post(
    `${c}/tokens/unrevoke`,
    handle(tokenSelector, (b) => {
      const tokens = selectTokens(ctx, b).filter((t) => t.revoked !== undefined);
      for (const t of tokens) delete t.revoked;
      ctx.changed();
      return { unrevoked: tokens.length };
    }),
  );
}
