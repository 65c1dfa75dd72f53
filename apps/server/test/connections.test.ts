import { ACCOUNT_LIMITS, connectionMessages as m } from "@keepsake/contracts";
import { DEMO_FB, DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { decryptSecret } from "../src/lib/crypto.ts";
import { createSandboxedApp, type SandboxedApp } from "./support/sandbox.ts";

let t: SandboxedApp;
beforeAll(async () => {
  t = await createSandboxedApp();
});
afterAll(async () => {
  await t?.close();
});
// An Instagram account belongs to one Keepsake user at a time; each test starts with none taken.
afterEach(async () => {
  await t.ctx.db.deleteFrom("instagram_accounts").execute();
});

const DRIVE = "https://www.googleapis.com/auth/drive.file";

async function startInstagram(token: string, accountType = "business") {
  const res = await t.call("GET", `/api/oauth/instagram/login?account_type=${accountType}`, {
    token,
  });
  expect(res.status).toBe(200);
  return res.body.auth_url as string;
}

/** Instagram consent for a demo account; answers Keepsake's callback URL. */
async function instagramConsent(token: string, accountId: string = DEMO_IG.business.id) {
  return t.consent(await startInstagram(token), { decision: "allow", account: accountId });
}

async function connectInstagram(token: string, accountId: string = DEMO_IG.business.id) {
  return t.land(await instagramConsent(token, accountId));
}

async function facebookConsent(token: string, fbUserId: string) {
  const res = await t.call("GET", "/api/oauth/facebook/auth-url", { token });
  expect(res.status).toBe(200);
  return t.consent(res.body.auth_url, { decision: "allow", user: fbUserId });
}

async function googleConsent(token: string, opts: { drive?: boolean; sub?: string } = {}) {
  const res = await t.call("GET", "/api/oauth/google/auth-url", { token });
  expect(res.status).toBe(200);
  const fields: Record<string, string> = {
    decision: "allow",
    authuser: opts.sub ?? DEMO_GOOGLE.jordan.sub,
  };
  if (opts.drive !== false) fields.drive_file = "on";
  return t.consent(res.body.auth_url, fields);
}

const params = (u: URL) => Object.fromEntries(u.searchParams.entries());

async function accountRows(userId: string) {
  return t.ctx.db
    .selectFrom("instagram_accounts")
    .selectAll()
    .where("user_id", "=", userId)
    .execute();
}

async function setTier(userId: string, tier: "free" | "premium" | "pro" | "agency") {
  await t.ctx.db
    .updateTable("users")
    .set({ subscription_tier: tier })
    .where("id", "=", userId)
    .execute();
}

describe("auth URLs", () => {
  it("need a signed-in user", async () => {
    expect((await t.call("GET", "/api/oauth/instagram/login")).status).toBe(401);
    expect((await t.call("GET", "/api/oauth/facebook/auth-url")).status).toBe(401);
    expect((await t.call("GET", "/api/oauth/google/auth-url")).status).toBe(401);
  });

  it("point at each provider with our redirect URI and a signed state", async () => {
    const { token } = await t.signUp();
    const ig = new URL(await startInstagram(token));
    expect(ig.origin + ig.pathname).toBe(`${t.sandbox.url}/www.instagram.com/oauth/authorize`);
    expect(params(ig)).toMatchObject({
      redirect_uri: `${t.ctx.config.appUrl}/api/oauth/instagram/callback`,
      response_type: "code",
      scope: "instagram_business_basic",
    });
    expect(ig.searchParams.get("state")).toMatch(/^s1\.[0-9a-f-]{36}\.[\w-]{43}$/);
    const fb = new URL(
      (await t.call("GET", "/api/oauth/facebook/auth-url", { token })).body.auth_url,
    );
    expect(fb.pathname).toBe("/www.facebook.com/v25.0/dialog/oauth");
    expect(fb.searchParams.get("redirect_uri")).toBe(
      `${t.ctx.config.appUrl}/api/oauth/facebook/callback`,
    );
    const g = new URL((await t.call("GET", "/api/oauth/google/auth-url", { token })).body.auth_url);
    expect(g.pathname).toBe("/accounts.google.com/o/oauth2/v2/auth");
    expect(params(g)).toMatchObject({ access_type: "offline", prompt: "consent" });
    expect(g.searchParams.get("scope")?.split(" ")).toContain(DRIVE);
  });

  it("rejects an unknown account_type", async () => {
    const { token } = await t.signUp();
    const res = await t.call("GET", "/api/oauth/instagram/login?account_type=robot", { token });
    expect(res.status).toBe(422);
  });
});

describe("connecting Instagram with Instagram Login", () => {
  it("stores the account with its profile and a long-lived token, encrypted", async () => {
    const { token, user } = await t.signUp();
    const landed = await connectInstagram(token);
    expect(landed.pathname).toBe("/dashboard");
    expect(params(landed)).toEqual({ instagram_connected: "true" });

    const status = await t.call("GET", "/api/oauth/status", { token });
    expect(status.body).toEqual({
      instagram_connected: true,
      instagram_username: DEMO_IG.business.username,
      google_connected: false,
      google_email: null,
      instagram_needs_reconnect: false,
      google_needs_reconnect: false,
    });

    const list = await t.call("GET", "/api/accounts/instagram-accounts", { token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      limit: 1,
      can_connect_more: false,
      remaining_slots: 0,
      subscription_tier: "free",
    });
    const [account] = list.body.accounts;
    expect(account).toMatchObject({
      username: DEMO_IG.business.username,
      synced_posts_count: 0,
      backed_up_posts_count: 0,
      last_sync: null,
      connected_via: "instagram",
      status: "healthy",
      status_reason: null,
    });
    expect(account.display_name).toEqual(expect.any(String));
    expect(account.follower_count).toBeGreaterThan(0);
    expect(account.following_count).toBeGreaterThan(0);
    expect(account.posts_count).toBeGreaterThan(0);
    expect(account.profile_picture_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const expiresInDays = (Date.parse(account.token_expires_at) - t.clock.now().getTime()) / 864e5;
    expect(expiresInDays).toBeGreaterThan(59);
    expect(expiresInDays).toBeLessThan(61);

    const me = await t.call("GET", "/api/auth/me", { token });
    expect(me.body.social_accounts).toEqual([
      {
        id: account.id,
        username: DEMO_IG.business.username,
        display_name: account.display_name,
        profile_picture_url: account.profile_picture_url,
      },
    ]);
    expect(me.body.token_expires_at).toBe(account.token_expires_at);

    // At rest: the sealed column decrypts to a token the provider accepts, and contains no token.
    const [row] = await accountRows(user.id);
    const secret = decryptSecret(t.ctx.secrets.encryptionKey, row!.access_token_encrypted);
    expect(row!.access_token_encrypted).toMatch(/^v1\./);
    const raw = await t.ctx.pool.query(
      "SELECT row_to_json(a)::text AS json FROM instagram_accounts a WHERE user_id = $1",
      [user.id],
    );
    expect(raw.rows[0].json).not.toContain(secret);
    const probe = await fetch(
      `${t.sandbox.url}/graph.instagram.com/v25.0/me?fields=username&access_token=${encodeURIComponent(secret)}`,
    );
    expect(((await probe.json()) as { username: string }).username).toBe(DEMO_IG.business.username);
    // Never sent to the browser.
    for (const body of [status.body, list.body, me.body]) {
      expect(JSON.stringify(body)).not.toContain(secret);
    }
  });

  it("connecting the same account again refreshes it instead of duplicating it", async () => {
    const { token, user } = await t.signUp();
    await connectInstagram(token);
    const [before] = await accountRows(user.id);
    await t.ctx.db
      .updateTable("instagram_accounts")
      .set({ username: "stale.name", status: "needs_reconnection", status_reason: "x" })
      .where("id", "=", before!.id)
      .execute();
    t.clock.advance(60_000);
    // At the free limit, an account that needs reconnecting may still be reconnected.
    const landed = await connectInstagram(token);
    expect(params(landed)).toEqual({ instagram_connected: "true" });
    const rows = await accountRows(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(before!.id);
    expect(rows[0]!.username).toBe(DEMO_IG.business.username);
    expect(rows[0]!.status).toBe("active");
    expect(rows[0]!.access_token_encrypted).not.toBe(before!.access_token_encrypted);
    expect(rows[0]!.connected_at).toEqual(before!.connected_at);
  });

  it("the same Instagram account cannot belong to two Keepsake users", async () => {
    const first = await t.signUp();
    await connectInstagram(first.token, DEMO_IG.creator.id);
    const second = await t.signUp();
    const landed = await connectInstagram(second.token, DEMO_IG.creator.id);
    expect(params(landed)).toEqual({ error: m.accountTaken, error_type: "account_taken" });
    expect(await accountRows(second.user.id)).toHaveLength(0);
    expect(await accountRows(first.user.id)).toHaveLength(1);
  });

  it("a personal account is refused with error_type=personal_account", async () => {
    const { token, user } = await t.signUp();
    const callback = await t.consent(await startInstagram(token, "personal"), {
      decision: "allow",
      account: DEMO_IG.personal.id,
    });
    const landed = await t.land(callback);
    expect(landed.pathname).toBe("/dashboard");
    expect(params(landed)).toEqual({ error: m.personalAccount, error_type: "personal_account" });
    expect(await accountRows(user.id)).toHaveLength(0);
  });

  it("a cancelled consent lands on the dashboard with a plain message", async () => {
    const { token, user } = await t.signUp();
    const callback = await t.consent(await startInstagram(token), { decision: "cancel" });
    expect(callback.searchParams.get("error")).toBe("access_denied");
    const landed = await t.land(callback);
    expect(landed.searchParams.get("error")).toBe(m.instagramCancelled);
    expect(await accountRows(user.id)).toHaveLength(0);
  });

  it("POST callback does the same exchange for a client holding the code", async () => {
    const { token, user } = await t.signUp();
    const callback = await instagramConsent(token);
    const body = {
      code: callback.searchParams.get("code"),
      state: callback.searchParams.get("state"),
    };
    const res = await t.call("POST", "/api/oauth/instagram/callback", { token, body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      provider: "instagram",
      redirect_to: "/dashboard?instagram_connected=true",
      instagram_username: DEMO_IG.business.username,
      google_email: null,
    });
    expect(await accountRows(user.id)).toHaveLength(1);
    const again = await t.call("POST", "/api/oauth/instagram/callback", { token, body });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: m.stateUsed, error_type: "invalid_state" });
    const invalid = await t.call("POST", "/api/oauth/instagram/callback", {
      token,
      body: { state: "x" },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail).toBe("code is required");
  });
});

describe("OAuth state", () => {
  async function freshCallback() {
    const { token, user } = await t.signUp();
    return { token, user, callback: await instagramConsent(token) };
  }
  const withState = (u: URL, state: string) => {
    const copy = new URL(u);
    copy.searchParams.set("state", state);
    return copy;
  };

  it("a tampered state is refused and changes nothing", async () => {
    const { user, callback } = await freshCallback();
    const state = callback.searchParams.get("state")!;
    const last = state.at(-1) === "A" ? "B" : "A";
    for (const forged of [
      `${state.slice(0, -1)}${last}`,
      state.replace(/^s1\.[0-9a-f]/, (s) => s.slice(0, -1) + (s.endsWith("0") ? "1" : "0")),
      "s1.00000000-0000-4000-8000-000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      "",
    ]) {
      const landed = await t.land(withState(callback, forged));
      expect(params(landed)).toEqual({ error: m.stateInvalid, error_type: "invalid_state" });
    }
    expect(await accountRows(user.id)).toHaveLength(0);
    // The genuine state is still good: refusals did not use it up.
    expect(params(await t.land(callback))).toEqual({ instagram_connected: "true" });
  });

  it("a replayed state is refused", async () => {
    const { user, callback } = await freshCallback();
    expect(params(await t.land(callback))).toEqual({ instagram_connected: "true" });
    const again = await t.land(callback);
    expect(params(again)).toEqual({ error: m.stateUsed, error_type: "invalid_state" });
    expect(await accountRows(user.id)).toHaveLength(1);
  });

  it("a state older than 10 minutes is refused", async () => {
    const { user, callback } = await freshCallback();
    t.clock.advance(10 * 60_000 + 1000);
    const landed = await t.land(callback);
    expect(params(landed)).toEqual({ error: m.stateExpired, error_type: "invalid_state" });
    expect(await accountRows(user.id)).toHaveLength(0);
  });

  it("another user's state is refused on the POST callback", async () => {
    const { user, callback } = await freshCallback();
    const other = await t.signUp();
    const res = await t.call("POST", "/api/oauth/instagram/callback", {
      token: other.token,
      body: { code: callback.searchParams.get("code"), state: callback.searchParams.get("state") },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: m.stateOtherUser, error_type: "invalid_state" });
    expect(await accountRows(user.id)).toHaveLength(0);
    expect(await accountRows(other.user.id)).toHaveLength(0);
  });

  it("a state issued for one provider is refused by another", async () => {
    const { token, user } = await t.signUp();
    const google = await googleConsent(token);
    const ig = await instagramConsent(token);
    const landed = await t.land(withState(ig, google.searchParams.get("state")!));
    expect(params(landed).error_type).toBe("invalid_state");
    expect(await accountRows(user.id)).toHaveLength(0);
  });
});

describe("connecting Instagram with Facebook Login", () => {
  it("connects the page-linked professional account", async () => {
    const { token, user } = await t.signUp();
    const landed = await t.land(await facebookConsent(token, DEMO_FB.withInstagram.id));
    expect(params(landed)).toEqual({ instagram_connected: "true", via: "facebook" });
    const rows = await accountRows(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      connected_via: "facebook",
      username: DEMO_IG.business.username,
      instagram_user_id: DEMO_IG.business.userId,
    });
    expect(rows[0]!.facebook_page_id).toEqual(expect.any(String));
    expect(rows[0]!.followers_count).toBeGreaterThan(0);
    const refreshed = await t.call(
      "PUT",
      `/api/accounts/instagram-accounts/${rows[0]!.id}/refresh-profile`,
      { token },
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.connected_via).toBe("facebook");
  });

  it("deleting the Keepsake account de-authorises Keepsake at Facebook", async () => {
    const { token, user, password } = await t.signUp();
    await t.land(await facebookConsent(token, DEMO_FB.withInstagram.id));
    const [row] = await accountRows(user.id);
    const fbToken = decryptSecret(t.ctx.secrets.encryptionKey, row!.access_token_encrypted);
    const graph = `${t.sandbox.url}/graph.facebook.com/v25.0/me?access_token=${fbToken}`;
    expect((await fetch(graph)).status).toBe(200);

    const res = await t.call("DELETE", "/api/auth/me", { token, body: { password } });
    expect(res.status).toBe(200);
    expect(res.body.facebook_revoked).toBe(1);
    const refused = await fetch(graph);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(190);
  });

  it.each([
    ["a page without Instagram", DEMO_FB.pageWithoutInstagram.id],
    ["no page at all", DEMO_FB.noPage.id],
  ])("%s → error_type=facebook_page_required", async (_label, fbUserId) => {
    const { token, user } = await t.signUp();
    const landed = await t.land(await facebookConsent(token, fbUserId));
    expect(params(landed)).toEqual({
      error: m.facebookPageRequired,
      error_type: "facebook_page_required",
    });
    expect(landed.searchParams.get("error")).toContain("Facebook Page");
    expect(await accountRows(user.id)).toHaveLength(0);
  });

  it("a cancelled dialog says so", async () => {
    const { token } = await t.signUp();
    const res = await t.call("GET", "/api/oauth/facebook/auth-url", { token });
    const landed = await t.land(await t.consent(res.body.auth_url, { decision: "cancel" }));
    expect(landed.searchParams.get("error")).toBe(m.facebookCancelled);
  });
});

describe("account limits", () => {
  it("free and premium: one account; the next start answers 403 with the SPEC message", async () => {
    for (const tier of ["free", "premium"] as const) {
      const { token, user } = await t.signUp();
      await setTier(user.id, tier);
      expect(params(await connectInstagram(token))).toEqual({ instagram_connected: "true" });
      for (const path of ["/api/oauth/instagram/login", "/api/oauth/facebook/auth-url"]) {
        const res = await t.call("GET", path, { token });
        expect(res.status).toBe(403);
        expect(res.body.detail).toBe(
          `Account limit reached. You can connect up to 1 account(s) with your ${tier} plan.`,
        );
      }
      await t.call("DELETE", "/api/oauth/instagram/disconnect", { token });
    }
  });

  it("a second connection finished after the first is refused at the callback", async () => {
    const { token, user } = await t.signUp();
    const first = await instagramConsent(token, DEMO_IG.business.id);
    const second = await instagramConsent(token, DEMO_IG.creator.id);
    expect(params(await t.land(first))).toEqual({ instagram_connected: "true" });
    const landed = await t.land(second);
    expect(params(landed)).toEqual({
      error: m.accountLimit(1, "free"),
      error_type: "account_limit",
    });
    expect(await accountRows(user.id)).toHaveLength(1);
  });

  it("pro: up to 3 accounts, then 403", async () => {
    const { token, user } = await t.signUp();
    await setTier(user.id, "pro");
    await connectInstagram(token, DEMO_IG.business.id);
    await connectInstagram(token, DEMO_IG.creator.id);
    let list = await t.call("GET", "/api/accounts/instagram-accounts", { token });
    expect(list.body).toMatchObject({ limit: 3, can_connect_more: true, remaining_slots: 1 });
    // The sandbox has two professional accounts; a third comes straight from the database.
    const [row] = await accountRows(user.id);
    await t.ctx.db
      .insertInto("instagram_accounts")
      .values({
        ...row!,
        id: undefined,
        instagram_user_id: "17841499999999999",
        username: "third.account",
      })
      .execute();
    list = await t.call("GET", "/api/accounts/instagram-accounts", { token });
    expect(list.body).toMatchObject({ limit: 3, can_connect_more: false, remaining_slots: 0 });
    expect(list.body.accounts).toHaveLength(3);
    const res = await t.call("GET", "/api/oauth/instagram/login", { token });
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe(m.accountLimit(ACCOUNT_LIMITS.pro, "pro"));
  });
});

describe("connecting Google Drive", () => {
  it("stores the refresh token encrypted and the e-mail", async () => {
    const { token, user } = await t.signUp();
    const landed = await t.land(await googleConsent(token));
    expect(params(landed)).toEqual({ google_connected: "true" });
    const status = await t.call("GET", "/api/oauth/status", { token });
    expect(status.body).toMatchObject({
      google_connected: true,
      google_email: DEMO_GOOGLE.jordan.email,
    });
    const row = await t.ctx.db
      .selectFrom("google_connections")
      .selectAll()
      .where("user_id", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(row.scopes.split(" ")).toContain(DRIVE);
    const refresh = decryptSecret(t.ctx.secrets.encryptionKey, row.refresh_token_encrypted);
    const raw = await t.ctx.pool.query(
      "SELECT row_to_json(g)::text AS json FROM google_connections g WHERE user_id = $1",
      [user.id],
    );
    expect(raw.rows[0].json).not.toContain(refresh);
    expect(JSON.stringify(status.body)).not.toContain(refresh);

    // The access token is refreshed on demand once it has run out.
    const first = await t.ctx.connections.tokens.googleAccessToken(user.id);
    expect(await t.ctx.connections.tokens.googleAccessToken(user.id)).toBe(first);
    t.clock.advance(3600_000);
    const second = await t.ctx.connections.tokens.googleAccessToken(user.id);
    expect(second).not.toBe(first);
    const info = await fetch(`${t.sandbox.url}/openidconnect.googleapis.com/v1/userinfo`, {
      headers: { authorization: `Bearer ${second}` },
    });
    expect(((await info.json()) as { email: string }).email).toBe(DEMO_GOOGLE.jordan.email);
  });

  it("without the Drive permission nothing is stored and the error says to tick it", async () => {
    const { token, user } = await t.signUp();
    // A Google user who never granted Drive (granted scopes accumulate across consents).
    const callback = await googleConsent(token, { drive: false, sub: DEMO_GOOGLE.sam.sub });
    expect(callback.searchParams.get("scope")).not.toContain(DRIVE);
    const landed = await t.land(callback);
    expect(params(landed)).toEqual({
      error: m.drivePermissionRequired,
      error_type: "drive_permission_required",
    });
    expect(landed.searchParams.get("error")).toMatch(/tick/);
    const row = await t.ctx.db
      .selectFrom("google_connections")
      .selectAll()
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it("a cancelled consent says so", async () => {
    const { token } = await t.signUp();
    const res = await t.call("GET", "/api/oauth/google/auth-url", { token });
    const landed = await t.land(await t.consent(res.body.auth_url, { decision: "cancel" }));
    expect(landed.searchParams.get("error")).toBe(m.googleCancelled);
  });

  it("disconnect revokes the grant at Google and forgets the tokens", async () => {
    const { token, user } = await t.signUp();
    await t.land(await googleConsent(token, { sub: DEMO_GOOGLE.maya.sub }));
    const row = await t.ctx.db
      .selectFrom("google_connections")
      .selectAll()
      .where("user_id", "=", user.id)
      .executeTakeFirstOrThrow();
    const refresh = decryptSecret(t.ctx.secrets.encryptionKey, row.refresh_token_encrypted);
    const res = await t.call("DELETE", "/api/oauth/google/disconnect", { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ disconnected: 1, revoked: true });
    const grant = await fetch(`${t.sandbox.url}/oauth2.googleapis.com/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: refresh,
        client_id: t.ctx.config.providers.google.clientId!,
        client_secret: t.ctx.config.providers.google.clientSecret!,
      }),
    });
    expect(((await grant.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await t.call("GET", "/api/oauth/status", { token })).body.google_connected).toBe(false);
    expect((await t.call("DELETE", "/api/oauth/google/disconnect", { token })).status).toBe(404);
  });
});

describe("disconnecting Instagram", () => {
  it("by account id, only the caller's own accounts", async () => {
    const { token, user } = await t.signUp();
    await connectInstagram(token, DEMO_IG.business.id);
    const [row] = await accountRows(user.id);
    const other = await t.signUp();
    const foreign = await t.call("DELETE", `/api/accounts/instagram-accounts/${row!.id}`, {
      token: other.token,
    });
    expect(foreign.status).toBe(404);
    expect(
      (await t.call("DELETE", "/api/accounts/instagram-accounts/not-an-id", { token })).status,
    ).toBe(404);
    const res = await t.call("DELETE", `/api/oauth/instagram/disconnect?account_id=${row!.id}`, {
      token,
    });
    expect(res.status).toBe(200);
    expect(res.body.disconnected).toBe(1);
    expect(res.body.message).toContain("stay");
    expect(await accountRows(user.id)).toHaveLength(0);
    expect((await t.call("DELETE", "/api/oauth/instagram/disconnect", { token })).status).toBe(404);
  });
});

describe("accounts with synced posts", () => {
  it("counts synced and backed-up posts; disconnecting removes them from Keepsake", async () => {
    const { token, user } = await t.signUp();
    await connectInstagram(token, DEMO_IG.business.id);
    const [row] = await accountRows(user.id);
    const posts = await t.ctx.db
      .insertInto("posts")
      .values(
        ["1", "2", "3"].map((n) => ({
          user_id: user.id,
          account_id: row!.id,
          instagram_id: `1790000000000000${n}`,
          media_type: "IMAGE" as const,
          posted_at: new Date("2026-05-01T10:00:00Z"),
        })),
      )
      .returning("id")
      .execute();
    await t.ctx.db
      .insertInto("backups")
      .values(
        posts.map((p, i) => ({
          post_id: p.id,
          user_id: user.id,
          account_id: row!.id,
          status: i < 2 ? ("completed" as const) : ("pending" as const),
        })),
      )
      .execute();
    const lastSync = new Date("2026-05-02T08:00:00Z");
    await t.ctx.db
      .insertInto("account_sync_state")
      .values({ account_id: row!.id, last_sync_at: lastSync })
      .execute();

    const list = await t.call("GET", "/api/accounts/instagram-accounts", { token });
    expect(list.body.accounts[0]).toMatchObject({
      synced_posts_count: 3,
      backed_up_posts_count: 2,
      last_sync: lastSync.toISOString(),
    });

    const res = await t.call("DELETE", `/api/accounts/instagram-accounts/${row!.id}`, { token });
    expect(res.status).toBe(200);
    const left = await t.ctx.db
      .selectFrom("posts")
      .select("id")
      .where("user_id", "=", user.id)
      .execute();
    expect(left).toEqual([]);
    const backups = await t.ctx.db
      .selectFrom("backups")
      .select("id")
      .where("user_id", "=", user.id)
      .execute();
    expect(backups).toEqual([]);
  });
});
