import { connectionMessages as m } from "@keepsake/contracts";
import { DEMO_FB, DEMO_IG } from "@keepsake/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import { decryptSecret } from "../../src/lib/crypto.ts";
import { connectionsSuite, params } from "../support/connections.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

/**
 * Connecting Instagram (Instagram Login, Facebook Login); disconnecting it:
 * connections-instagram.disconnect.test.ts.
 */
const suite = connectionsSuite();
const { startInstagram, instagramConsent, connectInstagram, facebookConsent, accountRows } = suite;
let t: SandboxedApp;
beforeAll(() => {
  t = suite.app();
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
    await t.rows.connections.updateInstagramAccount(before!.id, {
      username: "stale.name",
      status: "needs_reconnection",
      status_reason: "x",
    });
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
