import { connectionMessages as m, syncMessages } from "@keepsake/contracts";
import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import { createConnectionsRepository } from "../../src/connections/connections.repository.ts";
import { connectionsSuite } from "../support/connections.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

/**
 * Disconnecting Instagram: by account id, one account of several, during a sync, with its posts
 * (connecting it: connections-instagram.test.ts).
 */
const suite = connectionsSuite();
const { connectInstagram, accountRows } = suite;
let t: SandboxedApp;
beforeAll(() => {
  t = suite.app();
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

describe("disconnecting an account backed up elsewhere than Drive", () => {
  it("says its files stay in its own destination (issue 38)", async () => {
    const { token, user } = await t.signUp();
    await connectInstagram(token, DEMO_IG.business.id);
    const [row] = await accountRows(user.id);
    await t.ctx.db
      .updateTable("instagram_accounts")
      .set({ destination: "dropbox" })
      .where("id", "=", row!.id)
      .execute();
    const res = await t.call("DELETE", `/api/oauth/instagram/disconnect?account_id=${row!.id}`, {
      token,
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe(m.disconnected([DEMO_IG.business.username], "Dropbox"));
    expect(res.body.message).toContain("Files already in your Dropbox stay there.");
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
