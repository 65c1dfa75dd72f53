import { syncMessages as m } from "@keepsake/contracts";
import { DEMO_FB, DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
});
afterAll(async () => {
  await t?.close();
});

type Tier = "free" | "premium" | "pro" | "agency";

const signUpAs = (tier: Tier) => t.signUp({ tier });

async function connectFacebook(token: string, user: string) {
  const res = await t.call("GET", "/api/oauth/facebook/auth-url", { token });
  return t.land(await t.consent(res.body.auth_url, { decision: "allow", user }));
}

const syncJobs = (token: string) =>
  t.call("GET", "/api/sync/sync-jobs?limit=10", { token }).then((r) => r.body);

/** The sync-account jobs waiting in the queue for an account. */
async function queued(accountId: string) {
  const { rows } = await t.ctx.pool.query<{ kind: string; mode: string; sync_job_id: string }>(
    `SELECT data->>'kind' AS kind, data->>'mode' AS mode, data->>'syncJobId' AS sync_job_id
       FROM ${t.ctx.queueSchema}.job WHERE name = 'sync-account' AND data->>'accountId' = $1
        AND state IN ('created', 'retry')`,
    [accountId],
  );
  return rows;
}

const accountOf = (userId: string) =>
  t.ctx.db
    .selectFrom("instagram_accounts")
    .select(["id", "username"])
    .where("user_id", "=", userId)
    .execute();

/**
 * What a worker does with the queued first sync: the sync, then its backups. To keep the run
 * short, all but `real` of the backups it queued are recorded as done without uploading.
 */
async function runFirstSync(userId: string, accountId: string, syncJobId: string, real = 2) {
  await t.ctx.syncEngine.run(
    { accountId, syncJobId, kind: "manual", mode: "backup" },
    { retryCount: 0, retryLimit: 3 },
  );
  const pending = await t.ctx.db
    .selectFrom("backups")
    .select("id")
    .where("sync_job_id", "=", syncJobId)
    .where("status", "=", "pending")
    .execute();
  const skipped = pending.slice(real).map((b) => b.id);
  if (skipped.length > 0) {
    await t.rows.backups.updateBackups(
      { ids: skipped },
      { status: "completed", backup_size_bytes: 10 },
    );
    await t.ctx.syncRepos.runs.updateSyncJob(syncJobId, { posts_processed: skipped.length });
  }
  await h.drain(userId);
}

describe("connecting starts the first backup at once", () => {
  it("pro: Instagram first does nothing yet; Drive then starts the account's sync and backups", async () => {
    const u = await signUpAs("pro");
    await t.connectInstagram(u.token, DEMO_IG.creator.id);
    expect(await syncJobs(u.token)).toEqual([]);
    // Nothing is scheduled while Drive is missing: no countdown either.
    const before = await t.call("GET", "/api/sync/dashboard/stats", { token: u.token });
    expect(before.body.next_sync_in).toBeNull();

    await t.connectDrive(u.token, DEMO_GOOGLE.maya.sub);
    const [account] = await accountOf(u.user.id);
    const jobs = await syncJobs(u.token);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      account_id: account!.id,
      job_type: "manual",
      mode: "backup",
      status: "running",
    });
    expect(await queued(account!.id)).toEqual([
      { kind: "manual", mode: "backup", sync_job_id: jobs[0].id },
    ]);
    const status = await t.call("GET", "/api/sync/status", { token: u.token });
    expect(status.body.is_syncing).toBe(true);

    await runFirstSync(u.user.id, account!.id, jobs[0].id);
    const stats = (await t.call("GET", "/api/sync/dashboard/stats", { token: u.token })).body;
    expect(stats.total_posts).toBeGreaterThan(0);
    expect(stats.backed_up_posts + stats.failed_backups).toBe(stats.total_posts);
    expect(stats).toMatchObject({ pending_backups: 0, posts_over_limit: 0, post_limit: null });
    expect(stats.next_sync_in).toBeGreaterThan(0);
    const done = (await syncJobs(u.token))[0];
    expect(done).toMatchObject({ status: "completed", mode: "backup" });

    // Reconnecting the account starts a sync again.
    await t.connectInstagram(u.token, DEMO_IG.creator.id);
    const again = await syncJobs(u.token);
    expect(again).toHaveLength(2);
    expect(again[0]).toMatchObject({ status: "running", account_id: account!.id });
    await runFirstSync(u.user.id, account!.id, again[0].id);
    await t.call("DELETE", "/api/oauth/instagram/disconnect", { token: u.token });
  });

  it("agency: an account added through Facebook Login with Drive connected syncs at once", async () => {
    const u = await signUpAs("agency");
    await t.connectDrive(u.token, DEMO_GOOGLE.jordan.sub);
    expect(await syncJobs(u.token)).toEqual([]);
    await connectFacebook(u.token, DEMO_FB.withInstagram.id);
    const [account] = await accountOf(u.user.id);
    expect(account!.username).toBe(DEMO_IG.business.username);
    const jobs = await syncJobs(u.token);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ account_id: account!.id, status: "running" });
    expect(await queued(account!.id)).toHaveLength(1);
    // Its queued job is not run here: the account goes, and the job with it.
    await t.call("DELETE", "/api/oauth/instagram/disconnect", { token: u.token });
  });

  it("free: the first backup covers the plan's newest 100 posts and counts the rest as over the limit", async () => {
    const u = await signUpAs("free");
    await t.connectDrive(u.token, DEMO_GOOGLE.jordan.sub);
    await t.connectInstagram(u.token, DEMO_IG.business.id);
    const [account] = await accountOf(u.user.id);
    const [job] = await syncJobs(u.token);
    expect(job).toMatchObject({ status: "running", account_id: account!.id });
    await runFirstSync(u.user.id, account!.id, job.id);
    const stats = (await t.call("GET", "/api/sync/dashboard/stats", { token: u.token })).body;
    expect(stats.total_posts).toBeGreaterThan(100);
    expect(stats).toMatchObject({
      pending_backups: 0,
      post_limit: 100,
      posts_over_limit: stats.total_posts - 100,
      next_sync_in: null,
    });
    expect(stats.backed_up_posts + stats.failed_backups).toBe(100);

    // Pressing Start Backup again at the limit finds nothing to do, and says so in numbers.
    const again = await t.call("POST", "/api/sync/start", { token: u.token, body: {} });
    expect(again.body.message).toBe(m.syncStarted);
    await t.ctx.syncEngine.run(
      { accountId: account!.id, syncJobId: again.body.sync_job.id, kind: "manual", mode: "backup" },
      { retryCount: 0, retryLimit: 3 },
    );
    const status = (await t.call("GET", "/api/sync/status", { token: u.token })).body;
    expect(status.sync_job).toMatchObject({ status: "completed", posts_total: 0 });
    await t.call("DELETE", "/api/oauth/instagram/disconnect", { token: u.token });
  });
});

describe("a refresh that only lists posts says so", () => {
  it("answers its own message, is marked refresh, and leaves the listed posts pending", async () => {
    const u = await h.connectedUser({
      tier: "premium",
      instagram: DEMO_IG.creator.id,
      google: DEMO_GOOGLE.maya.sub,
    });
    const res = await t.call("POST", "/api/sync/refresh-instagram-posts", {
      token: u.token,
      body: {},
    });
    expect(res.body).toMatchObject({
      message: m.refreshStarted,
      sync_job: { mode: "refresh", status: "running" },
    });
    await t.ctx.syncEngine.run(
      { accountId: u.accountId, syncJobId: res.body.sync_job.id, kind: "manual", mode: "refresh" },
      { retryCount: 0, retryLimit: 3 },
    );
    const stats = (await t.call("GET", "/api/sync/dashboard/stats", { token: u.token })).body;
    expect(stats.total_posts).toBeGreaterThan(0);
    // Every listed post waits for a backup: Pending says so (not 0).
    expect(stats.pending_backups).toBe(stats.total_posts);
    expect(stats.backed_up_posts).toBe(0);
    const [job] = await syncJobs(u.token);
    expect(job).toMatchObject({ mode: "refresh", status: "completed" });
    await t.call("DELETE", "/api/oauth/instagram/disconnect", { token: u.token });
  });
});
