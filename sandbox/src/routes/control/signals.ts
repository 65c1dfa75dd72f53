import { createHmac, createPrivateKey, randomUUID, sign as rsaSign } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Ctx } from "../../context.ts";
import { SANDBOX_CREDENTIALS } from "../../credentials.ts";
import { page } from "../../pages.ts";
import { escapeHtml as h } from "../../util.ts";
import { signingKey } from "../google/common.ts";
import { CONTROL as c, handle } from "./handle.ts";
import { findAccount } from "./instagram.ts";
import { selectTokens } from "./tokens.ts";

const GOOGLE_ISSUER = "https://accounts.google.com/";
const RISC = "https://schemas.openid.net/secevent";
export const SECURITY_EVENTS = {
  "tokens-revoked": `${RISC}/oauth/event-type/tokens-revoked`,
  "account-disabled": `${RISC}/risc/event-type/account-disabled`,
  "sessions-revoked": `${RISC}/risc/event-type/sessions-revoked`,
  verification: `${RISC}/risc/event-type/verification`,
} as const;
export type SecurityEvent = keyof typeof SECURITY_EVENTS;

interface Delivery {
  url: string | null;
  status: number | null;
  body: unknown;
}

async function deliver(url: string | undefined, init: RequestInit): Promise<Delivery> {
  if (!url) return { url: null, status: null, body: null };
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { url, status: res.status, body };
  } catch (err) {
    return { url, status: null, body: String(err) };
  }
}

/** Meta's `signed_request`: the base64url HMAC-SHA256 of the base64url JSON payload, with the app secret. */
export function signedRequest(secret: string, userId: string, issuedAt: number): string {
  const payload = Buffer.from(
    JSON.stringify({ algorithm: "HMAC-SHA256", issued_at: issuedAt, user_id: userId }),
  ).toString("base64url");
  return `${createHmac("sha256", secret).update(payload).digest("base64url")}.${payload}`;
}

/**
 * A person removes Keepsake in Instagram's or Facebook's settings: every token of theirs for the
 * app stops working, Meta posts the signed deauthorize callback and, when they also asked for
 * their data to be deleted, the data-deletion callback (whose answer it shows them).
 */
export async function removeApp(
  ctx: Ctx,
  p: { via: "instagram" | "facebook"; person: string; deleteData: boolean },
) {
  const cb = ctx.appCallbacks;
  let userId: string;
  let secret: string;
  if (p.via === "instagram") {
    const account = findAccount(ctx, p.person);
    if (!account) throw new Error(`no Instagram account ${p.person}`);
    userId = account.id;
    secret = SANDBOX_CREDENTIALS.instagram.clientSecret;
    for (const t of selectTokens(ctx, { instagram_user_id: account.id }))
      t.revoked = { subcode: 458, message: "The user has not authorized application." };
  } else {
    const user =
      ctx.state.fbUsers[p.person] ??
      Object.values(ctx.state.fbUsers).find(
        (u) => u.email === p.person || u.pages.some((pg) => pg.instagramUserId === p.person),
      );
    if (!user) throw new Error(`no Facebook user ${p.person}`);
    userId = user.id;
    secret = SANDBOX_CREDENTIALS.facebook.appSecret;
    for (const t of selectTokens(ctx, { facebook_user_id: user.id }))
      t.revoked = { subcode: 458, message: "The user has not authorized application." };
  }
  ctx.changed();
  const body = () =>
    new URLSearchParams({
      signed_request: signedRequest(secret, userId, Math.floor(ctx.now() / 1000)),
    }).toString();
  const init = () => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: body(),
  });
  const deauthorize = await deliver(
    p.via === "instagram" ? cb.instagramDeauthorize : cb.facebookDeauthorize,
    init(),
  );
  const dataDeletion = p.deleteData
    ? await deliver(
        p.via === "instagram" ? cb.instagramDataDeletion : cb.facebookDataDeletion,
        init(),
      )
    : null;
  return { user_id: userId, deauthorize, data_deletion: dataDeletion };
}

/** A Cross-Account Protection security event token (RS256, the sandbox's Google key). */
export function securityEventToken(ctx: Ctx, sub: string, event: SecurityEvent): string {
  const key = signingKey(ctx);
  const now = Math.floor(ctx.now() / 1000);
  const header = { alg: "RS256", kid: key.kid, typ: "secevent+jwt" };
  const subject = { subject_type: "iss-sub", iss: GOOGLE_ISSUER, sub };
  const payload = {
    iss: GOOGLE_ISSUER,
    aud: SANDBOX_CREDENTIALS.google.clientId,
    iat: now,
    jti: randomUUID(),
    events: {
      [SECURITY_EVENTS[event]]:
        event === "verification"
          ? { state: "sandbox" }
          : event === "account-disabled"
            ? { subject, reason: "hijacking" }
            : { subject },
    },
  };
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const input = `${enc(header)}.${enc(payload)}`;
  const sig = rsaSign("RSA-SHA256", Buffer.from(input), createPrivateKey(key.privatePem));
  return `${input}.${sig.toString("base64url")}`;
}

/**
 * Something happens to a Google account: revoked grants and a disabled account end its tokens
 * (revoked sessions leave them), and Google posts the security event to the receiver.
 */
export async function googleSecurityEvent(ctx: Ctx, p: { email: string; event: SecurityEvent }) {
  const user = Object.values(ctx.state.googleUsers).find(
    (u) => u.email === p.email || u.sub === p.email,
  );
  if (!user) throw new Error(`no Google user ${p.email}`);
  if (p.event === "tokens-revoked" || p.event === "account-disabled") {
    for (const t of selectTokens(ctx, { google_email: user.email }))
      t.revoked = { subcode: 0, message: "Token has been expired or revoked." };
    ctx.changed();
  }
  const delivery = await deliver(ctx.appCallbacks.googleSecurityEvents, {
    method: "POST",
    headers: { "content-type": "application/secevent+jwt" },
    body: securityEventToken(ctx, user.sub, p.event),
  });
  return { sub: user.sub, delivery };
}

const CSS =
  "body{font-family:system-ui,sans-serif;max-width:720px;margin:40px auto;padding:0 16px;color:#222}form{display:inline}button{margin:4px 8px 4px 0}li{margin:12px 0}";

/** The control calls, and `/apps`: each demo person's "Apps and websites" settings. */
export function registerSignals(app: FastifyInstance, ctx: Ctx): void {
  app.post(
    `${c}/app-callbacks`,
    handle(
      z.object({
        instagramDeauthorize: z.string().optional(),
        instagramDataDeletion: z.string().optional(),
        facebookDeauthorize: z.string().optional(),
        facebookDataDeletion: z.string().optional(),
        googleSecurityEvents: z.string().optional(),
      }),
      (b) => {
        ctx.appCallbacks = { ...ctx.appCallbacks, ...b };
        return ctx.appCallbacks;
      },
    ),
  );
  app.post(
    `${c}/meta/remove-app`,
    handle(
      z.object({
        via: z.enum(["instagram", "facebook"]),
        /** An Instagram account (id or @username), or a Facebook user (id, e-mail, or a linked Instagram id). */
        person: z.string(),
        delete_data: z.boolean().optional(),
      }),
      (b) => removeApp(ctx, { via: b.via, person: b.person, deleteData: b.delete_data ?? false }),
    ),
  );
  app.post(
    `${c}/google/security-event`,
    handle(
      z.object({
        google_email: z.string(),
        event: z.enum(["tokens-revoked", "account-disabled", "sessions-revoked", "verification"]),
      }),
      (b) => googleSecurityEvent(ctx, { email: b.google_email, event: b.event }),
    ),
  );

  app.get("/apps", async (_req, reply) => {
    const form = (action: string, fields: Record<string, string>, label: string) =>
      `<form method="post" action="${h(action)}">${Object.entries(fields)
        .map(([k, v]) => `<input type="hidden" name="${h(k)}" value="${h(v)}">`)
        .join("")}<button type="submit">${h(label)}</button></form>`;
    const ig = Object.values(ctx.state.igAccounts).map(
      (a) =>
        `<li><b>@${h(a.username)}</b> (Instagram)<br>${form("/apps/remove", { via: "instagram", person: a.id }, "Remove Keepsake")}${form("/apps/remove", { via: "instagram", person: a.id, delete_data: "on" }, "Remove Keepsake and delete my data")}</li>`,
    );
    const fb = Object.values(ctx.state.fbUsers).map(
      (u) =>
        `<li><b>${h(u.name)}</b> (Facebook)<br>${form("/apps/remove", { via: "facebook", person: u.id }, "Remove Keepsake")}${form("/apps/remove", { via: "facebook", person: u.id, delete_data: "on" }, "Remove Keepsake and delete my data")}</li>`,
    );
    const google = Object.values(ctx.state.googleUsers).map(
      (u) =>
        `<li><b>${h(u.email)}</b> (Google)<br>${form("/apps/google", { email: u.email, event: "tokens-revoked" }, "Remove Keepsake's access")}${form("/apps/google", { email: u.email, event: "account-disabled" }, "Disable this account")}${form("/apps/google", { email: u.email, event: "sessions-revoked" }, "Sign out everywhere")}</li>`,
    );
    return reply
      .type("text/html")
      .send(
        page(
          "Apps and websites",
          CSS,
          `<h1>Apps and websites</h1><p>What each demo person can do to Keepsake from their Instagram, Facebook or Google settings.</p><ul>${[...ig, ...fb, ...google].join("")}</ul>`,
        ),
      );
  });
  const done = (title: string, result: unknown) =>
    page(
      title,
      CSS,
      `<h1>${h(title)}</h1><pre>${h(JSON.stringify(result, null, 2))}</pre><p><a href="/apps">Back</a></p>`,
    );
  app.post("/apps/remove", async (req, reply) => {
    const b = (req.body ?? {}) as Record<string, string>;
    const via = b.via === "facebook" ? "facebook" : "instagram";
    const result = await removeApp(ctx, {
      via,
      person: String(b.person ?? ""),
      deleteData: b.delete_data === "on",
    });
    return reply.type("text/html").send(done("Keepsake removed", result));
  });
  app.post("/apps/google", async (req, reply) => {
    const b = (req.body ?? {}) as Record<string, string>;
    const event = (
      b.event && b.event in SECURITY_EVENTS ? b.event : "tokens-revoked"
    ) as SecurityEvent;
    const result = await googleSecurityEvent(ctx, { email: String(b.email ?? ""), event });
    return reply.type("text/html").send(done("Google told Keepsake", result));
  });
}
