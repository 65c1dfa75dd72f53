import { DEMO_DROPBOX, DEMO_ONEDRIVE } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { backupPostJob } from "../../src/backups/jobs/backup-post.job.ts";
import { deliverMailJob, mailSweepJob } from "../../src/mail/mail.jobs.ts";
import { alertsCheckJob } from "../../src/notifications/alerts.jobs.ts";
import { reconnectWords } from "../../src/providers/failure-words.ts";
import { syncAccountJob } from "../../src/sync/jobs/sync-account.job.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

// Issues 36 and 38: the health state has one destination per destination the accounts use, each
// from its own connection. A user whose only account is backed up to Dropbox is never told to
// connect Google Drive; a revoked Dropbox raises the connection alert, reconnecting resolves it
// and restarts the account's backups.
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;

beforeAll(async () => {
  t = await createSandboxedApp(
    {},
    {
      // The queues exist (connecting queues a sync); no worker runs them: the test does.
      jobs: [deliverMailJob, mailSweepJob, syncAccountJob, backupPostJob, accountMailJob],
      engineSettings: FAST_ENGINE,
    },
  );
  h = backupHelpers(t);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const health = async (token: string) => {
  const res = await t.call("GET", "/api/sync/health", { token });
  expect(res.status).toBe(200);
  return res.body;
};
const connectionAlerts = async (token: string) =>
  (await t.call("GET", "/api/notifications", { token })).body.notifications.filter(
    (n: { category: string }) => n.category === "alert_connection",
  );

/** Dropbox's consent screen, answered as a browser would, back on Keepsake's callback. */
const connectDropbox = (token: string) =>
  connectVia(token, "dropbox", DEMO_DROPBOX.jordan.accountId);

/** The consent screen of Dropbox or Microsoft, answered "allow" for `account`. */
async function connectVia(token: string, kind: "dropbox" | "onedrive", account: string) {
  const res = await t.call("GET", `/api/oauth/${kind}/auth-url`, { token });
  expect(res.status).toBe(200);
  const page = new URL(res.body.authorization_url);
  const submitted = await fetch(`${page.origin}${page.pathname}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      ...Object.fromEntries(page.searchParams),
      decision: "allow",
      account,
    }).toString(),
    redirect: "manual",
  });
  expect(submitted.status).toBe(302);
  await t.land(new URL(submitted.headers.get("location") as string));
}

/** The account's syncs (newest first), as started by the server. */
const syncJobs = (accountId: string) =>
  t.ctx.db
    .selectFrom("sync_jobs")
    .select(["id", "status"])
    .where("account_id", "=", accountId)
    .orderBy("started_at", "desc")
    .execute();

describe("health per destination: an account backed up to Dropbox or OneDrive", () => {
  it("not connected is the first-run step; revoked is broken with its alert; reconnecting resolves it and restarts the backups", async () => {
    const u = await t.signUp();
    const { accounts } = await h.control<{ accounts: { id: string; username: string }[] }>(
      "/instagram/accounts",
      { body: { count: 1, posts: 3 } },
    );
    const ig = accounts[0]!;
    await t.connectInstagram(u.token, ig.id);
    const account = await t.ctx.db
      .selectFrom("instagram_accounts")
      .select(["id", "username"])
      .where("user_id", "=", u.user.id)
      .executeTakeFirstOrThrow();
    // Google Drive is every account's default until the user chooses.
    let s = await health(u.token);
    expect(s.next_step).toMatchObject({ step: "connect_drive", destination: "google_drive" });

    // Dropbox connected and chosen for the account; Google Drive never connected.
    await connectDropbox(u.token);
    const put = await t.call("PUT", `/api/oauth/instagram/accounts/${account.id}/destination`, {
      token: u.token,
      body: { destination: "dropbox" },
    });
    expect(put.status).toBe(200);
    s = await health(u.token);
    expect(s.destinations).toEqual([
      expect.objectContaining({ kind: "dropbox", state: "ok", label: DEMO_DROPBOX.jordan.email }),
    ]);
    expect(s.ready).toBe(true);
    expect(s.next_step).toMatchObject({ step: "first_backup", number: 3, destination: "dropbox" });
    expect(s.next_step.text).toMatch(/Dropbox\.$/);
    expect(JSON.stringify(s)).not.toMatch(/Google Drive/);

    // Disconnected while the account still points at it: step 2 names Dropbox, not Drive.
    expect((await t.call("DELETE", "/api/destinations/dropbox", { token: u.token })).status).toBe(
      200,
    );
    await t.rows.sync.deleteSyncJobsOfUser(u.user.id);
    s = await health(u.token);
    expect(s).toMatchObject({
      state: "setup",
      ready: false,
      headline: "Connect Dropbox to start",
      fix: { label: "Connect Dropbox", path: "/settings?tab=connections" },
    });
    expect(s.next_step).toMatchObject({
      step: "connect_storage",
      number: 2,
      destination: "dropbox",
      title: "Step 2 of 3: connect your Dropbox",
      fix: { label: "Connect Dropbox", path: "/settings?tab=connections" },
    });
    expect(s.destinations).toEqual([
      expect.objectContaining({ kind: "dropbox", state: "not_connected", label: null }),
    ]);
    expect(s.destinations[0].cause).toContain(`@${account.username}`);
    expect(JSON.stringify(s)).not.toMatch(/Google Drive/);
    // The connections' summary (the digest's actions) asks for Dropbox, not Drive.
    const summary = async () =>
      (await t.call("GET", "/api/oauth/connection-status", { token: u.token })).body;
    expect(await summary()).toMatchObject({
      ready_for_backup: false,
      actions: ["Connect your Dropbox"],
    });

    // Connecting it starts the account's first backup at once, as connecting Drive does.
    await connectDropbox(u.token);
    expect(await syncJobs(account.id)).toEqual([expect.objectContaining({ status: "running" })]);
    let run = await h.syncAndDrain(u.user.id, account.id);
    expect(run.job).toMatchObject({ status: "completed", posts_failed: 0 });
    expect(run.job?.posts_processed).toBeGreaterThan(0);
    s = await health(u.token);
    expect(s).toMatchObject({ state: "ready", ready: true, next_step: null });
    expect(await summary()).toMatchObject({ ready_for_backup: true, actions: [] });

    // Dropbox revokes the grant; the next backups are refused and the connection is marked.
    await h.control("/instagram/posts", { body: { account: ig.username, count: 2 } });
    await h.control("/tokens/revoke", { body: { dropbox_email: DEMO_DROPBOX.jordan.email } });
    run = await h.syncAndDrain(u.user.id, account.id);
    expect(run.job?.posts_failed).toBeGreaterThan(0);
    s = await health(u.token);
    expect(s).toMatchObject({
      state: "broken",
      ready: false,
      headline: "Backups paused: reconnect Dropbox",
      fix: { label: "Reconnect Dropbox", path: "/settings?tab=connections" },
    });
    expect(s.destinations).toEqual([
      expect.objectContaining({
        kind: "dropbox",
        state: "needs_reconnection",
        cause: reconnectWords.dropbox,
        fix: { label: "Reconnect Dropbox", path: "/settings?tab=connections" },
      }),
    ]);
    expect(s.destinations[0].since).not.toBeNull();
    // Dropbox explains the failures: the account itself is fine, the run names the fix.
    expect(s.accounts[0].state).toBe("ok");
    expect(s.last_run.text).not.toMatch(/Successfully/);
    expect(s.last_run.fix).toMatchObject({ label: "Reconnect Dropbox" });
    expect(JSON.stringify(s)).not.toMatch(/Google Drive/);
    expect(await summary()).toMatchObject({
      ready_for_backup: false,
      actions: ["Reconnect Dropbox"],
    });

    // One connection alert, worded as the health state words it; the check keeps it open.
    let alerts = await connectionAlerts(u.token);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      title: "Reconnect Dropbox: your backups to it have stopped",
      resolved_at: null,
      action_label: "Reconnect Dropbox",
    });
    expect(JSON.stringify(alerts[0])).toContain(reconnectWords.dropbox);
    await alertsCheckJob.handler({}, t.ctx, { id: "test", retryCount: 0 });
    expect((await connectionAlerts(u.token))[0].resolved_at).toBeNull();

    // Reconnecting resolves the alert and starts the account's waiting backups again.
    await t.rows.sync.deleteSyncJobsOfUser(u.user.id);
    await connectDropbox(u.token);
    alerts = await connectionAlerts(u.token);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].resolved_at).not.toBeNull();
    expect(await syncJobs(account.id)).toEqual([expect.objectContaining({ status: "running" })]);
    run = await h.syncAndDrain(u.user.id, account.id);
    expect(run.job?.posts_failed).toBe(0);
    const failed = await t.ctx.db
      .selectFrom("backups")
      .select("id")
      .where("account_id", "=", account.id)
      .where("status", "=", "failed")
      .execute();
    expect(failed).toEqual([]);
    s = await health(u.token);
    expect(s).toMatchObject({ state: "ready", ready: true, headline: "✓ Ready for backup" });
  }, 180_000);

  it("Dropbox full (insufficient_space): the health and the alert name Dropbox; resolved once Dropbox takes a backup", async () => {
    const u = await t.signUp();
    await t.rows.auth.updateUser(u.user.id, { email_verified_at: new Date() });
    const { accounts } = await h.control<{ accounts: { id: string }[] }>("/instagram/accounts", {
      body: { count: 1, posts: 3 },
    });
    await t.connectInstagram(u.token, accounts[0]!.id);
    const account = await t.ctx.db
      .selectFrom("instagram_accounts")
      .select("id")
      .where("user_id", "=", u.user.id)
      .executeTakeFirstOrThrow();
    await connectDropbox(u.token);
    const put = await t.call("PUT", `/api/oauth/instagram/accounts/${account.id}/destination`, {
      token: u.token,
      body: { destination: "dropbox" },
    });
    expect(put.status).toBe(200);
    await t.rows.sync.deleteSyncJobsOfUser(u.user.id);

    // Room for nothing more.
    const quota = (bytes: number) =>
      h.control<{ used_bytes: number }>("/dropbox/quota", {
        body: { email: DEMO_DROPBOX.jordan.email, bytes },
      });
    const { used_bytes } = await quota(2 ** 40);
    await quota(used_bytes + 10);
    try {
      const run = await h.syncAndDrain(u.user.id, account.id);
      expect(run.job?.posts_failed).toBeGreaterThan(0);
      const s = await health(u.token);
      expect(s).toMatchObject({
        state: "broken",
        ready: false,
        headline: "Backups paused: Dropbox is full",
        fix: { label: "Free up Dropbox space", path: "https://www.dropbox.com/account/plan" },
      });
      expect(s.destinations).toEqual([
        expect.objectContaining({
          kind: "dropbox",
          state: "full",
          cause: "Your Dropbox is full: new backups are refused until there is space.",
        }),
      ]);
      expect(s.accounts[0].state).toBe("ok");
      expect(JSON.stringify(s)).not.toMatch(/Google Drive|Drive space/);
    } finally {
      await quota(2 ** 40);
    }
    const fullAlerts = async () =>
      (await t.call("GET", "/api/notifications", { token: u.token })).body.notifications.filter(
        (n: { category: string }) => n.category === "alert_drive_full",
      );
    let alerts = await fullAlerts();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      title: "Your Dropbox is full: backups are on hold",
      action_label: "Free up Dropbox space",
      action_path: "https://www.dropbox.com/account/plan",
      resolved_at: null,
    });
    expect(alerts[0].body).toContain(
      "Your Dropbox is full: new backups are refused until there is space.",
    );
    // Nothing was taken since: the check leaves it open.
    await alertsCheckJob.handler({}, t.ctx, { id: "test", retryCount: 0 });
    expect((await fullAlerts())[0].resolved_at).toBeNull();

    // Space again: the next sync takes the refused backups, and the alert is resolved.
    const run = await h.syncAndDrain(u.user.id, account.id);
    expect(run.job?.posts_failed).toBe(0);
    await alertsCheckJob.handler({}, t.ctx, { id: "test", retryCount: 0 });
    alerts = await fullAlerts();
    expect(alerts[0].resolved_at).not.toBeNull();
    expect(await health(u.token)).toMatchObject({ state: "ready", ready: true });
  }, 180_000);

  it("OneDrive revoked: broken with Reconnect OneDrive and its alert; reconnecting resolves it", async () => {
    const { u, account } = await h.userWithAccount(2);
    await connectVia(u.token, "onedrive", DEMO_ONEDRIVE.camille.id);
    const put = await t.call("PUT", `/api/oauth/instagram/accounts/${account.id}/destination`, {
      token: u.token,
      body: { destination: "onedrive" },
    });
    expect(put.status).toBe(200);
    expect((await health(u.token)).destinations).toEqual([
      expect.objectContaining({
        kind: "onedrive",
        state: "ok",
        label: DEMO_ONEDRIVE.camille.email,
      }),
    ]);

    // Microsoft refuses the refresh token: the connection is marked (as a backup would find it).
    await h.control("/tokens/revoke", { body: { microsoft_email: DEMO_ONEDRIVE.camille.email } });
    await expect(
      t.ctx.connections.destinations.custody.accessToken(u.user.id, "onedrive", {
        forceRefresh: true,
      }),
    ).rejects.toThrow(reconnectWords.onedrive);
    const s = await health(u.token);
    expect(s).toMatchObject({
      state: "broken",
      headline: "Backups paused: reconnect OneDrive",
      fix: { label: "Reconnect OneDrive", path: "/settings?tab=connections" },
    });
    let alerts = await connectionAlerts(u.token);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      title: "Reconnect OneDrive: your backups to it have stopped",
      action_label: "Reconnect OneDrive",
      resolved_at: null,
    });
    expect(alerts[0].body).toContain(reconnectWords.onedrive);

    await connectVia(u.token, "onedrive", DEMO_ONEDRIVE.camille.id);
    alerts = await connectionAlerts(u.token);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].resolved_at).not.toBeNull();
    expect((await health(u.token)).destinations[0]).toMatchObject({ state: "ok" });
  }, 120_000);
});
