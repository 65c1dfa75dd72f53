import { connectionMessages as m, syncMessages } from "@keepsake/contracts";
import { DEMO_FB, DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import { createConnectionsRepository } from "../src/connections/connections.repository.ts";
import { decryptSecret } from "../src/lib/crypto.ts";
import { connectionsSuite, params } from "./support/connections.ts";
import type { SandboxedApp } from "./support/sandbox.ts";

/** Connecting Instagram (Instagram Login, Facebook Login), disconnecting it, its posts. */
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

/** Three posts of the account, two of them backed up; answers the post ids. */
async function seedPosts(userId: string, accountId: string, prefix: string) {
  const posts = await t.rows.sync.insertPosts(
    ["1", "2", "3"].map((n) => ({
      user_id: userId,
      account_id: accountId,
      instagram_id: `${prefix}${n}`,
      media_type: "IMAGE" as const,
      posted_at: new Date("2026-05-01T10:00:00Z"),
    })),
  );
  await t.rows.backups.insertBackups(
    posts.map((p, i) => ({
      post_id: p.id,
      user_id: userId,
      account_id: accountId,
      status: i < 2 ? ("completed" as const) : ("pending" as const),
    })),
  );
  return posts.map((p) => p.id).sort();
}

/** The ids of the account's posts and of its backups' posts. */
async function recordsOf(accountId: string) {
  const [posts, backups] = await Promise.all([
    t.ctx.db.selectFrom("posts").select("id").where("account_id", "=", accountId).execute(),
    t.ctx.db.selectFrom("backups").select("post_id").where("account_id", "=", accountId).execute(),
  ]);
  return { posts: posts.map((p) => p.id).sort(), backups: backups.map((b) => b.post_id).sort() };
}

describe("disconnecting one of several accounts", () => {
  /** A pro user with @lumen.studio (connected first) and @maya.creates, each with posts. */
  async function twoAccounts() {
    const u = await t.signUp({ tier: "pro" });
    await connectInstagram(u.token, DEMO_IG.business.id);
    t.clock.advance(60_000);
    await connectInstagram(u.token, DEMO_IG.creator.id);
    const rows = await accountRows(u.user.id);
    const first = rows.find((r) => r.username === DEMO_IG.business.username)!;
    const second = rows.find((r) => r.username === DEMO_IG.creator.username)!;
    const firstPosts = await seedPosts(u.user.id, first.id, "1791000000000000");
    const secondPosts = await seedPosts(u.user.id, second.id, "1792000000000000");
    return { ...u, first, second, firstPosts, secondPosts };
  }

  it("without account_id is refused while two are connected, and removes nothing", async () => {
    const u = await twoAccounts();
    const res = await t.call("DELETE", "/api/oauth/instagram/disconnect", { token: u.token });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: m.chooseAccountToDisconnect(2) });
    expect(await accountRows(u.user.id)).toHaveLength(2);
    expect(await recordsOf(u.first.id)).toEqual({ posts: u.firstPosts, backups: u.firstPosts });
    expect(await recordsOf(u.second.id)).toEqual({ posts: u.secondPosts, backups: u.secondPosts });
  });

  it("with account_id removes that account and its records only, and names it", async () => {
    const u = await twoAccounts();
    const res = await t.call("DELETE", `/api/oauth/instagram/disconnect?account_id=${u.first.id}`, {
      token: u.token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: m.disconnected([DEMO_IG.business.username]),
      disconnected: 1,
    });
    expect(res.body.message).toContain(`@${DEMO_IG.business.username}`);
    expect(res.body.message).toContain("Files already in your Google Drive stay there");
    expect((await accountRows(u.user.id)).map((r) => r.id)).toEqual([u.second.id]);
    expect(await recordsOf(u.first.id)).toEqual({ posts: [], backups: [] });
    expect(await recordsOf(u.second.id)).toEqual({ posts: u.secondPosts, backups: u.secondPosts });

    // One account left: a disconnect without account_id may name it now.
    const last = await t.call("DELETE", "/api/oauth/instagram/disconnect", { token: u.token });
    expect(last.status).toBe(200);
    expect(last.body.message).toBe(m.disconnected([DEMO_IG.creator.username]));
    expect(await accountRows(u.user.id)).toHaveLength(0);
  });

  it("/oauth/status names the account that is backed up, not a paused one", async () => {
    const u = await twoAccounts();
    await t.setTier(u.user.id, "premium");
    // The user keeps the newer account: the older one (listed first) is paused.
    const kept = await t.call("PUT", `/api/accounts/instagram-accounts/${u.second.id}/keep`, {
      token: u.token,
    });
    expect(kept.status).toBe(200);
    expect(kept.body).toEqual({
      message: `@${DEMO_IG.creator.username} is synced again. Paused now: @${DEMO_IG.business.username}.`,
      paused_accounts: 1,
    });
    const status = await t.call("GET", "/api/oauth/status", { token: u.token });
    expect(status.body).toMatchObject({
      instagram_connected: true,
      instagram_username: DEMO_IG.creator.username,
    });
    // An account whose access ended is not named either while another one works.
    await t.setTier(u.user.id, "pro");
    await createConnectionsRepository(t.ctx.db).applyAccountLimit(u.user.id, 3);
    await t.ctx.connections.health.markInstagramNeedsReconnection(u.first.id, "revoked");
    await t.rows.connections.updateInstagramAccount(u.first.id, {
      connected_at: new Date("2020-01-01T00:00:00Z"),
    });
    const again = await t.call("GET", "/api/oauth/status", { token: u.token });
    expect(again.body).toMatchObject({
      instagram_username: DEMO_IG.creator.username,
      instagram_needs_reconnect: true,
    });
  });
});

describe("disconnecting an account while its sync runs", () => {
  it("ends the sync: /sync/status no longer reports one running", async () => {
    const { token, user } = await t.signUp({ tier: "pro" });
    await connectInstagram(token, DEMO_IG.business.id);
    // Connecting Drive starts the first sync; it lists the posts and queues their backups.
    await t.connectDrive(token, DEMO_GOOGLE.jordan.sub);
    const [account] = await accountRows(user.id);
    const started = await t.call("GET", "/api/sync/status", { token });
    expect(started.body).toMatchObject({ is_syncing: true, sync_job: { status: "running" } });
    const syncJobId = started.body.sync_job.id as string;
    await t.ctx.syncEngine.run(
      { accountId: account!.id, syncJobId, kind: "manual", mode: "backup" },
      { retryCount: 0, retryLimit: 3 },
    );
    const listed = await t.ctx.syncRepos.runs.findSyncJob(syncJobId);
    expect(listed).toMatchObject({ status: "running" });
    expect(listed!.posts_total).toBeGreaterThan(0);

    const res = await t.call(
      "DELETE",
      `/api/oauth/instagram/disconnect?account_id=${account!.id}`,
      {
        token,
      },
    );
    expect(res.status).toBe(200);
    // Ended by the disconnect itself, before anything reads the status.
    expect(await t.ctx.syncRepos.runs.findSyncJob(syncJobId)).toMatchObject({
      status: "cancelled",
      error_message: syncMessages.accountDisconnected,
    });
    const status = await t.call("GET", "/api/sync/status", { token });
    expect(status.body).toMatchObject({
      is_syncing: false,
      sync_job: { id: syncJobId, status: "cancelled" },
    });
    // A backup of the account still queued finds nothing and changes nothing.
    const anyPost = await t.ctx.db
      .selectFrom("posts")
      .select("id")
      .where("user_id", "=", user.id)
      .execute();
    expect(anyPost).toEqual([]);
  });

  it("a run left running by a disconnected account is ended when the status is read", async () => {
    const { token, user } = await t.signUp();
    // As a disconnect leaves a run it could not end: no account any more, still running.
    const orphan = await t.rows.sync.insertSyncJob({
      user_id: user.id,
      account_id: null,
      job_type: "manual",
      mode: "backup",
      status: "running",
      started_at: t.clock.now(),
      heartbeat_at: t.clock.now(),
    });
    const status = await t.call("GET", "/api/sync/status", { token });
    expect(status.body).toMatchObject({
      is_syncing: false,
      sync_job: { id: orphan.id, status: "cancelled" },
    });
  });
});

describe("accounts with synced posts", () => {
  it("counts synced and backed-up posts; disconnecting removes them from Keepsake", async () => {
    const { token, user } = await t.signUp();
    await connectInstagram(token, DEMO_IG.business.id);
    const [row] = await accountRows(user.id);
    const posts = await t.rows.sync.insertPosts(
      ["1", "2", "3"].map((n) => ({
        user_id: user.id,
        account_id: row!.id,
        instagram_id: `1790000000000000${n}`,
        media_type: "IMAGE" as const,
        posted_at: new Date("2026-05-01T10:00:00Z"),
      })),
    );
    await t.rows.backups.insertBackups(
      posts.map((p, i) => ({
        post_id: p.id,
        user_id: user.id,
        account_id: row!.id,
        status: i < 2 ? ("completed" as const) : ("pending" as const),
      })),
    );
    // A story counts among the synced posts, and is named apart (Instagram counts no stories).
    await t.rows.sync.insertPosts([
      {
        user_id: user.id,
        account_id: row!.id,
        instagram_id: "17900000000000009",
        media_type: "IMAGE" as const,
        media_product_type: "STORY" as const,
        posted_at: new Date("2026-05-01T11:00:00Z"),
      },
    ]);
    const lastSync = new Date("2026-05-02T08:00:00Z");
    await t.rows.sync.insertSyncState({ account_id: row!.id, last_sync_at: lastSync });

    const list = await t.call("GET", "/api/accounts/instagram-accounts", { token });
    expect(list.body.accounts[0]).toMatchObject({
      synced_posts_count: 4,
      synced_stories_count: 1,
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
