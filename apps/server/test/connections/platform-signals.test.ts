import { createHmac, createPrivateKey, generateKeyPairSync, sign as rsaSign } from "node:crypto";
import { DEMO_FB, DEMO_GOOGLE, DEMO_IG, SANDBOX_CREDENTIALS } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { platformSignalUrls } from "../../src/connections/platform-signals.routes.ts";
import { SIGNAL_REASONS } from "../../src/connections/platform-signals.service.ts";
import { connectionsSuite } from "../support/connections.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

/**
 * Meta's Deauthorize and Data Deletion Request callbacks and Google's Cross-Account Protection
 * events, delivered by the sandbox's apps to a listening Keepsake as the real ones would be.
 */
const suite = connectionsSuite();
const { connectInstagram, facebookConsent } = suite;
let t: SandboxedApp;
let appUrl: string;

beforeAll(async () => {
  t = suite.app();
  appUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  const res = await fetch(`${t.sandbox.url}/_control/app-callbacks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(platformSignalUrls(appUrl)),
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await t.app.close();
});

async function control(path: string, body: unknown) {
  const res = await fetch(`${t.sandbox.url}/_control/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: the control API's answers are read loosely
  return (await res.json()) as any;
}

const accounts = async (token: string) =>
  (await t.call("GET", "/api/accounts/instagram-accounts", { token })).body.accounts as {
    id: string;
    username: string;
    status: string;
    status_reason: string | null;
  }[];

function signed(secret: string, payload: Record<string, unknown>) {
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${createHmac("sha256", secret).update(body).digest("base64url")}.${body}`;
}

async function postForm(path: string, signedRequest: string) {
  const res = await fetch(`${appUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ signed_request: signedRequest }).toString(),
  });
  return { status: res.status, body: await res.json() };
}

describe("Meta's deauthorize callback", () => {
  it("Instagram Login: the account needs reconnection and the user is told", async () => {
    const { token } = await t.signUp();
    await connectInstagram(token);
    const out = await control("meta/remove-app", { via: "instagram", person: DEMO_IG.business.id });
    expect(out.deauthorize).toMatchObject({ status: 200, body: { received: true } });
    const [account] = await accounts(token);
    expect(account).toMatchObject({
      status: "needs_reconnection",
      status_reason: SIGNAL_REASONS.instagram,
    });
    const bell = await t.call("GET", "/api/notifications", { token });
    expect(JSON.stringify(bell.body)).toContain(SIGNAL_REASONS.instagram);
  });

  it("Facebook Login: the accounts the Facebook user connected need reconnection", async () => {
    const { token } = await t.signUp();
    await t.land(await facebookConsent(token, DEMO_FB.withInstagram.id));
    const out = await control("meta/remove-app", {
      via: "facebook",
      person: DEMO_FB.withInstagram.id,
    });
    expect(out.deauthorize.status).toBe(200);
    expect((await accounts(token)).map((a) => a.status)).toEqual(["needs_reconnection"]);
  });

  it("refuses a forged, stale or malformed signed request and changes nothing", async () => {
    const { token } = await t.signUp();
    await connectInstagram(token);
    const now = Math.floor(Date.now() / 1000);
    const payload = { algorithm: "HMAC-SHA256", issued_at: now, user_id: DEMO_IG.business.id };
    const secret = SANDBOX_CREDENTIALS.instagram.clientSecret;
    for (const bad of [
      signed("not-the-app-secret", payload),
      signed(SANDBOX_CREDENTIALS.facebook.appSecret, payload),
      signed(secret, { ...payload, issued_at: now - 3 * 3600 }),
      signed(secret, { ...payload, algorithm: "none" }),
      "garbage",
    ]) {
      const res = await postForm("/api/meta/instagram/deauthorize", bad);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: "The signed request is not valid." });
    }
    expect((await accounts(token)).map((a) => a.status)).toEqual(["healthy"]);
    // The same request, signed right, is taken.
    const good = await postForm("/api/meta/instagram/deauthorize", signed(secret, payload));
    expect(good.status).toBe(200);
    expect((await accounts(token)).map((a) => a.status)).toEqual(["needs_reconnection"]);
  });
});

describe("Meta's data-deletion callback", () => {
  it("erases the account's records in Keepsake and answers a status URL with a code", async () => {
    const owner = await t.signUp();
    await connectInstagram(owner.token);
    const other = await t.signUp();
    await connectInstagram(other.token, DEMO_IG.creator.id);
    const accountId = (await accounts(owner.token))[0]!.id;
    await t.rows.sync.insertPosts(
      ["1", "2", "3"].map((n) => ({
        user_id: owner.user.id,
        account_id: accountId,
        instagram_id: `erase${n}`,
        media_type: "IMAGE" as const,
        posted_at: new Date("2026-05-01T10:00:00Z"),
      })),
    );
    const total = async () =>
      (await t.call("GET", "/api/sync/posts", { token: owner.token })).body.total as number;
    expect(await total()).toBe(3);

    const out = await control("meta/remove-app", {
      via: "instagram",
      person: DEMO_IG.business.id,
      delete_data: true,
    });
    expect(out.data_deletion.status).toBe(200);
    const { url, confirmation_code } = out.data_deletion.body;
    expect(confirmation_code).toMatch(/^[\w-]{8,}$/);
    expect(url).toBe(`${t.ctx.config.appUrl}/data-deletion?code=${confirmation_code}`);

    expect(await accounts(owner.token)).toEqual([]);
    expect(await total()).toBe(0);
    // Another user's account is untouched.
    expect((await accounts(other.token)).map((a) => a.username)).toEqual([
      DEMO_IG.creator.username,
    ]);

    const status = await t.call("GET", `/api/meta/data-deletion/${confirmation_code}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      confirmation_code,
      status: "completed",
      provider: "instagram",
      accounts_erased: 1,
    });
    const unknown = await t.call("GET", "/api/meta/data-deletion/no-such-code");
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe("No data deletion request has this code.");
  });
});

describe("Google's Cross-Account Protection", () => {
  const status = async (token: string) =>
    (await t.call("GET", "/api/oauth/connection-status", { token })).body;

  it.each(["tokens-revoked", "account-disabled", "sessions-revoked"] as const)(
    "%s: Drive needs reconnecting",
    async (event) => {
      const { token } = await t.signUp();
      await t.connectDrive(token, DEMO_GOOGLE.maya.sub);
      const out = await control("google/security-event", {
        google_email: DEMO_GOOGLE.maya.email,
        event,
      });
      expect(out.delivery.status).toBe(202);
      expect((await status(token)).google.status).toBe("needs_reconnection");
    },
  );

  it("a verification event changes nothing; a forged or misaddressed token is refused", async () => {
    const { token } = await t.signUp();
    await t.connectDrive(token, DEMO_GOOGLE.sam.sub);
    const v = await control("google/security-event", {
      google_email: DEMO_GOOGLE.sam.email,
      event: "verification",
    });
    expect(v.delivery.status).toBe(202);
    expect((await status(token)).google.status).toBe("healthy");

    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const jwks = (await (
      await fetch(`${t.sandbox.url}/www.googleapis.com/oauth2/v3/certs`)
    ).json()) as { keys: { kid: string }[] };
    const kid = jwks.keys[0]!.kid;
    const now = Math.floor(Date.now() / 1000);
    const events = {
      "https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked": {
        subject: {
          subject_type: "iss-sub",
          iss: "https://accounts.google.com/",
          sub: DEMO_GOOGLE.sam.sub,
        },
      },
    };
    const claims = {
      iss: "https://accounts.google.com/",
      aud: SANDBOX_CREDENTIALS.google.clientId,
      iat: now,
      jti: "forged",
      events,
    };
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const input = `${enc({ alg: "RS256", kid, typ: "secevent+jwt" })}.${enc(claims)}`;
    const forged = `${input}.${rsaSign("RSA-SHA256", Buffer.from(input), createPrivateKey(privateKey.export({ type: "pkcs8", format: "pem" }))).toString("base64url")}`;
    for (const body of [forged, "not.a.token", "garbage"]) {
      const res = await fetch(`${appUrl}/api/google/security-events`, {
        method: "POST",
        headers: { "content-type": "application/secevent+jwt" },
        body,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toBe(
        "The security event token is not valid.",
      );
    }
    expect((await status(token)).google.status).toBe("healthy");
  });
});
