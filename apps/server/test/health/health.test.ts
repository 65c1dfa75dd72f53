import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { backupPostJob } from "../../src/backups/jobs/backup-post.job.ts";
import { deliverMailJob, mailSweepJob } from "../../src/mail/mail.jobs.ts";
import { alertsCheckJob } from "../../src/notifications/alerts.jobs.ts";
import { syncAccountJob } from "../../src/sync/jobs/sync-account.job.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

// Issue 36: one health state per account and destination, computed on the server; runs whose
// backups failed are not successes; alerts resolve when their cause is fixed.
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;

beforeAll(async () => {
  t = await createSandboxedApp(
    {},
    {
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
const bell = async (token: string) => (await t.call("GET", "/api/notifications", { token })).body;
const connectionAlerts = async (token: string) =>
  (await bell(token)).notifications.filter(
    (n: { category: string }) => n.category === "alert_connection",
  );
const runCheck = () => alertsCheckJob.handler({}, t.ctx, { id: "test", retryCount: 0 });

describe("the health state", () => {
  it("a new user: the first-run path names each next step until the first backup ran", async () => {
    const u = await t.signUp();
    let s = await health(u.token);
    expect(s).toMatchObject({ state: "setup", ready: false });
    expect(s.next_step).toMatchObject({
      step: "connect_instagram",
      number: 1,
      fix: { label: "Connect Instagram", path: "/settings?tab=connections" },
    });
    expect(s.destinations).toEqual([
      expect.objectContaining({ kind: "google_drive", state: "not_connected" }),
    ]);

    const { accounts } = await h.control<{ accounts: { id: string }[] }>("/instagram/accounts", {
      body: { count: 1, posts: 4 },
    });
    await t.connectInstagram(u.token, accounts[0]!.id);
    s = await health(u.token);
    expect(s.next_step).toMatchObject({ step: "connect_drive", number: 2 });
    expect(s.headline).toBe("Connect Google Drive to start");

    await t.connectDrive(u.token, DEMO_GOOGLE.jordan.sub);
    const account = await t.ctx.db
      .selectFrom("instagram_accounts")
      .select("id")
      .where("user_id", "=", u.user.id)
      .executeTakeFirstOrThrow();
    // Connecting started the first sync; this test runs it itself.
    await t.rows.sync.deleteSyncJobsOfUser(u.user.id);
    s = await health(u.token);
    expect(s.next_step).toMatchObject({ step: "first_backup", number: 3, fix: null });
    expect(s.ready).toBe(true);

    const { job } = await h.syncAndDrain(u.user.id, account.id);
    expect(job?.posts_failed).toBe(0);
    s = await health(u.token);
    expect(s).toMatchObject({ state: "ready", ready: true, headline: "✓ Ready for backup" });
    expect(s.next_step).toBeNull();
    expect(s.last_run).toMatchObject({
      outcome: "succeeded",
      text: `Successfully processed ${job?.posts_processed} posts`,
    });
  }, 120_000);

  it("Drive revoked: broken with Reconnect, the run failed; one open alert; reconnecting resolves it", async () => {
    const u = await h.connectedUser({
      instagram: DEMO_IG.creator.id,
      google: DEMO_GOOGLE.maya.sub,
    });
    await h.control("/tokens/revoke", { body: { google_email: DEMO_GOOGLE.maya.email } });
    const { job } = await h.syncAndDrain(u.user.id, u.accountId);
    expect(job?.posts_total).toBeGreaterThan(0);
    // Every backup the run held failed, and the run counts them.
    expect(job?.posts_failed).toBe(job?.posts_total);
    const jobs = (await t.call("GET", "/api/sync/sync-jobs", { token: u.token })).body;
    expect(jobs[0]).toMatchObject({ id: job?.id, posts_failed: job?.posts_total });

    let s = await health(u.token);
    expect(s).toMatchObject({
      state: "broken",
      ready: false,
      headline: "Backups paused: reconnect Google Drive",
      fix: { label: "Reconnect Google Drive", path: "/settings?tab=connections" },
    });
    expect(s.destinations[0]).toMatchObject({
      kind: "google_drive",
      state: "needs_reconnection",
      fix: { label: "Reconnect Google Drive" },
    });
    expect(s.destinations[0].since).not.toBeNull();
    expect(s.last_run.outcome).toBe("failed");
    expect(s.last_run.text).not.toMatch(/Successfully/);
    expect(s.last_run.fix).toMatchObject({ label: "Reconnect Google Drive" });
    // /api/v1 answers the same state.
    await t.setTier(u.user.id, "pro");
    const key = await t.call("POST", "/api/api-keys", { token: u.token, body: { name: "health" } });
    expect(key.status).toBe(201);
    const v1 = await t.call("GET", "/api/v1/health", { token: key.body.key });
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(s);

    // One open alert, whatever else reports the same cause while it is open.
    await t.ctx.connections.health.refreshConnections(u.user.id);
    await t.ctx.alerts.connectionLost({
      provider: "google",
      userId: u.user.id,
      subjectId: u.user.id,
      label: DEMO_GOOGLE.maya.email,
      reason: "Google Drive access was revoked.",
      grant: "another-grant",
    });
    let alerts = await connectionAlerts(u.token);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ read: false, resolved_at: null });

    // Reconnecting fixes the cause: the alert is resolved (and read), the state is ready.
    await t.connectDrive(u.token, DEMO_GOOGLE.maya.sub);
    alerts = await connectionAlerts(u.token);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].read).toBe(true);
    expect(alerts[0].resolved_at).not.toBeNull();
    expect((await bell(u.token)).unread).toBe(0);
    s = await health(u.token);
    expect(s.destinations[0].state).toBe("ok");
    expect(s.ready).toBe(true);
    expect(s.headline).not.toMatch(/reconnect/i);

    // A revoke after the resolution is a new alert.
    await h.control("/tokens/revoke", { body: { google_email: DEMO_GOOGLE.maya.email } });
    await t.ctx.connections.health.refreshConnections(u.user.id);
    alerts = await connectionAlerts(u.token);
    expect(alerts).toHaveLength(2);
    expect(
      alerts.filter((a: { resolved_at: string | null }) => a.resolved_at === null),
    ).toHaveLength(1);
    await t.connectDrive(u.token, DEMO_GOOGLE.maya.sub);
  }, 120_000);

  it("Drive full: one open alert across days; resolved once Drive takes a backup again", async () => {
    const { accounts } = await h.control<{ accounts: { id: string }[] }>("/instagram/accounts", {
      body: { count: 1, posts: 3 },
    });
    const u = await h.connectedUser({ instagram: accounts[0]!.id, google: DEMO_GOOGLE.sam.sub });
    const post = async () =>
      (
        await t.ctx.db
          .selectFrom("posts")
          .select("id")
          .where("account_id", "=", u.accountId)
          .executeTakeFirst()
      )?.id ?? "00000000-0000-4000-8000-000000000000";
    const full = async () =>
      t.ctx.alerts.backupFailed({
        accountId: u.accountId,
        postId: await post(),
        reason: "drive_full",
        message: "Your Google Drive is full.",
      });
    const driveFull = async () =>
      (await bell(u.token)).notifications.filter(
        (n: { category: string }) => n.category === "alert_drive_full",
      );
    await full();
    t.clock.advance(24 * 3600_000);
    await full();
    expect(await driveFull()).toHaveLength(1);
    // Nothing was backed up since: the check leaves it open.
    await runCheck();
    expect((await driveFull())[0].resolved_at).toBeNull();
    await h.syncAndDrain(u.user.id, u.accountId);
    await runCheck();
    const [resolved] = await driveFull();
    expect(resolved.resolved_at).not.toBeNull();
    expect(resolved.read).toBe(true);
  }, 120_000);
});
