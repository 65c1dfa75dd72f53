import { DEMO_GOOGLE, DEMO_IG, SANDBOX_PRICES, type SandboxMail } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountMailJob } from "../src/auth/account-mail.job.ts";
import { backupPostJob } from "../src/backups/jobs/backup-post.job.ts";
import { deliverMailJob, mailSweepJob } from "../src/mail/mail.jobs.ts";
import { alertsCheckJob } from "../src/notifications/alerts.jobs.ts";
import { syncAccountJob } from "../src/sync/jobs/sync-account.job.ts";
import { backupHelpers, FAST_ENGINE } from "./support/backup.ts";
import { billingHelpers, stripeEnv } from "./support/billing.ts";
import { peerApps } from "./support/peers.ts";
import { createSandboxedApp, type SandboxedApp } from "./support/sandbox.ts";
import { until } from "./support/wait.ts";

// Alerts end to end on the server: the events happen through our engines and hooks against the
// provider sandbox, mail goes out through the outbox to the sandbox's SMTP server over loopback.
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
type Connected = Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;
let lumen: Connected;
let maya: Connected;
const HOUR = 3600_000;

beforeAll(async () => {
  t = await createSandboxedApp(
    stripeEnv,
    // The sync's queues exist (a sync queues backups); workers run them as in production.
    {
      jobs: [deliverMailJob, mailSweepJob, syncAccountJob, backupPostJob, accountMailJob],
      engineSettings: FAST_ENGINE,
    },
  );
  await t.ctx.queue.work(t.ctx);
  h = backupHelpers(t);
  lumen = await h.connectedUser({ tier: "pro" });
  maya = await h.connectedUser({
    instagram: DEMO_IG.creator.id,
    google: DEMO_GOOGLE.maya.sub,
    tier: "pro",
  });
  await verify(lumen.user.id);
  await verify(maya.user.id);
  await h.listPosts(maya);
}, 60_000);
afterAll(async () => {
  await peers?.close();
  await t?.close();
});

async function verify(userId: string) {
  await t.rows.auth.updateUser(userId, { email_verified_at: new Date() });
}

/**
 * What the sandbox's inbox holds for `to`, without the account e-mails every new user gets
 * (the address verification sent at registration): this file counts alerts.
 */
async function inbox(to: string): Promise<SandboxMail[]> {
  const res = await fetch(`${t.sandbox.url}/_control/mail?to=${encodeURIComponent(to)}`);
  const mails = (await res.json()) as SandboxMail[];
  return mails.filter((m) => m.headers["x-keepsake-category"] !== "account");
}

/** Waits until the user's outbox has no message left to send; answers their inbox. */
async function delivered(user: { user: { id: string; email: string } }) {
  await until(
    () =>
      t.ctx.db
        .selectFrom("mail_outbox")
        .select("id")
        .where("user_id", "=", user.user.id)
        .where("status", "in", ["queued", "sending"])
        .execute(),
    (open) => open.length === 0,
    20_000,
  );
  return inbox(user.user.email);
}

const notificationsOf = async (userId: string, category?: string) =>
  (
    await t.ctx.db
      .selectFrom("notifications")
      .selectAll()
      .where("user_id", "=", userId)
      .orderBy("created_at")
      .execute()
  ).filter((n) => !category || n.category === category);

const subjects = (mails: SandboxMail[]) => mails.map((m) => m.subject).sort();
const runCheck = () => alertsCheckJob.handler({}, t.ctx, { id: "test", retryCount: 0 });

/**
 * The alerts check run at once by this app and by three other processes' worth of pools on its
 * database (support/peers.ts), as several workers might: what is told once stays once.
 */
let peers: Awaited<ReturnType<typeof peerApps>> | undefined;
async function raceChecks() {
  peers ??= await peerApps(t, 3, { SMTP_URL: t.sandbox.urls.smtp });
  await Promise.all(
    [t, ...peers.apps].map((a) => alertsCheckJob.handler({}, a.ctx, { id: "race", retryCount: 0 })),
  );
}

describe("connection alerts", () => {
  it("Google revoked during a sync: one alert mail and one bell entry, however often it is detected", async () => {
    await h.listPosts(lumen);
    await h.control("/tokens/revoke", { body: { google_email: DEMO_GOOGLE.jordan.email } });
    // Every backup of the sync meets the revoked grant; the check runs twice besides.
    await h.syncAndDrain(lumen.user.id, lumen.accountId);
    await runCheck();
    await raceChecks();
    await t.ctx.connections.health.refreshConnections(lumen.user.id);
    const mails = (await delivered(lumen)).filter((m) => m.subject.includes("Google Drive"));
    expect(subjects(mails)).toEqual(["Reconnect Google Drive: your backups have stopped"]);
    const [mail] = mails;
    expect(mail!.text).toContain("/settings?tab=connections");
    expect(mail!.headers["list-unsubscribe"]).toBeDefined();
    expect(mail!.headers["x-keepsake-category"]).toBe("alert_connection");
    const bell = await t.call("GET", "/api/notifications", { token: lumen.token });
    expect(bell.status).toBe(200);
    const entries = bell.body.notifications.filter(
      (n: { category: string }) => n.category === "alert_connection",
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      title: "Reconnect Google Drive: your backups have stopped",
      action_label: "Reconnect",
      action_path: "/settings?tab=connections",
      read: false,
    });
    // The failed backups it caused are that alert's: no "backups failed" summary besides.
    expect(await notificationsOf(lumen.user.id, "alert_backup_failures")).toHaveLength(0);

    // Reconnecting is a new grant: when that one is revoked too, it is a new event.
    await t.connectDrive(lumen.token, DEMO_GOOGLE.jordan.sub);
    await h.control("/tokens/revoke", { body: { google_email: DEMO_GOOGLE.jordan.email } });
    await t.ctx.connections.health.refreshConnections(lumen.user.id);
    await t.ctx.connections.health.refreshConnections(lumen.user.id);
    expect(await notificationsOf(lumen.user.id, "alert_connection")).toHaveLength(2);
    const again = (await delivered(lumen)).filter((m) => m.subject.includes("Google Drive"));
    expect(again).toHaveLength(2);
    await t.connectDrive(lumen.token, DEMO_GOOGLE.jordan.sub);
  });

  it("an Instagram token that cannot be renewed and ends within 7 days: once per token", async () => {
    const now = t.clock.now();
    await t.rows.connections.updateInstagramAccount(maya.accountId, {
      connected_via: "facebook",
      token_issued_at: new Date(now.getTime() - 55 * 24 * HOUR),
      token_expires_at: new Date(now.getTime() + 3 * 24 * HOUR),
    });
    await raceChecks();
    await runCheck();
    const alerts = await notificationsOf(maya.user.id, "alert_connection");
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.title).toMatch(/^Reconnect @maya\.creates before /);
    const mails = (await delivered(maya)).filter((m) => m.subject.startsWith("Reconnect @maya"));
    expect(mails).toHaveLength(1);
    // An Instagram Login token the refresh job will still renew is not an alert.
    await t.rows.connections.updateInstagramAccount(maya.accountId, {
      connected_via: "instagram",
      token_issued_at: new Date(now.getTime() - 2 * HOUR),
      token_expires_at: new Date(now.getTime() + 50 * 24 * HOUR),
    });
    await runCheck();
    expect(await notificationsOf(maya.user.id, "alert_connection")).toHaveLength(1);
  });
});

describe("failing backups", () => {
  it("one summary per account per day, naming what failed; a second detection adds nothing", async () => {
    const posts = await t.ctx.db
      .selectFrom("posts")
      .select("id")
      .where("account_id", "=", maya.accountId)
      .limit(5)
      .execute();
    expect(posts.length).toBe(5);
    const fail = (postId: string, message: string) =>
      t.ctx.alerts.backupFailed({
        accountId: maya.accountId,
        postId,
        reason: "retries_exhausted",
        message,
      });
    await fail(posts[0]!.id, "Backup failed after 4 attempts: Instagram did not answer in time");
    await fail(posts[1]!.id, "Backup failed after 4 attempts: Instagram did not answer in time");
    await fail(posts[2]!.id, "Backup failed after 4 attempts: Google Drive answered 500");
    await runCheck();
    await runCheck();
    let summaries = await notificationsOf(maya.user.id, "alert_backup_failures");
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.title).toBe("3 backups of @maya.creates failed");
    let mails = (await delivered(maya)).filter((m) => m.subject.includes("backups of @maya"));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(
      "2 × Backup failed after 4 attempts: Instagram did not answer",
    );
    expect(mails[0]!.text).toContain("Google Drive answered 500");

    // More failures the same day: no second mail today.
    await fail(posts[3]!.id, "Backup failed after 4 attempts: the CDN answered 403");
    await runCheck();
    expect(await notificationsOf(maya.user.id, "alert_backup_failures")).toHaveLength(1);

    // The next day's check sends them (and only them).
    t.clock.advance(24 * HOUR);
    await runCheck();
    await runCheck();
    summaries = await notificationsOf(maya.user.id, "alert_backup_failures");
    expect(summaries).toHaveLength(2);
    expect(summaries.map((n) => n.title).sort()).toEqual([
      "1 backup of @maya.creates failed",
      "3 backups of @maya.creates failed",
    ]);
    mails = (await delivered(maya)).filter((m) => m.subject.includes("of @maya.creates failed"));
    expect(mails).toHaveLength(2);
  });

  it("Drive full: one alert a day, whatever the number of refused backups", async () => {
    const post = await t.ctx.db
      .selectFrom("posts")
      .select("id")
      .where("account_id", "=", maya.accountId)
      .executeTakeFirstOrThrow();
    for (let i = 0; i < 3; i++) {
      await t.ctx.alerts.backupFailed({
        accountId: maya.accountId,
        postId: post.id,
        reason: "drive_full",
        message: "Your Google Drive is full.",
      });
    }
    expect(await notificationsOf(maya.user.id, "alert_drive_full")).toHaveLength(1);
    const mails = (await delivered(maya)).filter((m) => m.subject.includes("Drive is full"));
    expect(mails).toHaveLength(1);
  });
});

describe("stale syncs and lost stories", () => {
  it("a paid account without a successful sync for 24 hours: once per stale period", async () => {
    const now = t.clock.now();
    await t.rows.sync.upsertSyncState({
      account_id: maya.accountId,
      last_sync_at: new Date(now.getTime() - 30 * HOUR),
    });
    await runCheck();
    await runCheck();
    expect(await notificationsOf(maya.user.id, "alert_sync_stale")).toHaveLength(1);
    const mails = (await delivered(maya)).filter((m) => m.subject.includes("backed up for a day"));
    expect(mails).toHaveLength(1);
    // Synced again: not stale; the free plan is never "stale".
    await t.rows.sync.updateSyncState(maya.accountId, { last_sync_at: now });
    await runCheck();
    expect(await notificationsOf(maya.user.id, "alert_sync_stale")).toHaveLength(1);
  });

  it("stories that expired before they were saved: told once", async () => {
    const now = t.clock.now();
    const posts = await t.ctx.db
      .selectFrom("posts")
      .select(["id", "user_id", "account_id"])
      .where("account_id", "=", maya.accountId)
      .orderBy("id")
      .limit(2)
      .execute();
    for (const p of posts) {
      await t.rows.sync.updatePost(p.id, {
        media_product_type: "STORY",
        posted_at: new Date(now.getTime() - 25 * HOUR),
      });
      await t.rows.backups.upsertBackup({
        post_id: p.id,
        user_id: p.user_id,
        account_id: p.account_id,
        status: "failed",
        error_message: "The story's media was no longer available.",
      });
    }
    await runCheck();
    await runCheck();
    const lost = await notificationsOf(maya.user.id, "alert_stories");
    expect(lost).toHaveLength(1);
    expect(lost[0]!.title).toBe("2 stories of @maya.creates expired before they could be saved");
    const mails = (await delivered(maya)).filter((m) => m.subject.includes("expired before"));
    expect(mails).toHaveLength(1);
  });
});

describe("billing alerts", () => {
  it("through Stripe's webhooks: plan changed and payment failed, once each, redeliveries add nothing", async () => {
    const b = billingHelpers(t);
    const u = await t.signUp();
    await verify(u.user.id);
    await b.newEvents();
    const paid = await b.checkout(u.token, SANDBOX_PRICES.pro.monthly);
    expect(paid.location).toContain("/billing/return");
    const bought = await b.newEvents();
    await b.deliverAll(bought);
    await b.deliverAll(bought);
    const customer = (await b.stripe.customers.list({ email: u.user.email })).data[0]!;
    const sub = (await b.subscriptionOf(customer.id))!;
    await fetch(`${t.sandbox.url}/_control/stripe/payment_failed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ subscription: sub.id }),
    });
    const failed = await b.newEvents();
    await b.deliverAll(failed);
    await b.deliverAll(failed);
    const titles = (await notificationsOf(u.user.id, "alert_billing")).map((n) => n.title).sort();
    expect(titles).toEqual(["Your Keepsake payment failed", "Your plan is now Pro"]);
    const mails = await delivered(u);
    expect(subjects(mails)).toEqual(["Your Keepsake payment failed", "Your plan is now Pro"]);
    expect(mails.find((m) => m.subject.includes("failed"))!.text).toContain(
      "Your plan keeps running until",
    );
  });

  it("payment failed and plan changed: once per Stripe event", async () => {
    const event = {
      userId: maya.user.id,
      eventId: "evt_test_failed_1",
      type: "invoice.payment_failed",
      before: "pro" as const,
      after: "pro" as const,
      periodEnd: new Date(t.clock.now().getTime() + 10 * 24 * HOUR),
    };
    await t.ctx.alerts.billingEvent(event);
    await t.ctx.alerts.billingEvent(event);
    const billing = await notificationsOf(maya.user.id, "alert_billing");
    expect(billing.map((n) => n.title)).toEqual(["Your Keepsake payment failed"]);
    const mails = (await delivered(maya)).filter(
      (m) => m.subject === "Your Keepsake payment failed",
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain("returns to Free");

    const downgrade = {
      ...event,
      eventId: "evt_test_downgrade_1",
      type: "customer.subscription.deleted",
      after: "free" as const,
      periodEnd: null,
    };
    await t.ctx.alerts.billingEvent(downgrade);
    await t.ctx.alerts.billingEvent(downgrade);
    const titles = (await notificationsOf(maya.user.id, "alert_billing")).map((n) => n.title);
    expect(titles.sort()).toEqual(["Your Keepsake payment failed", "Your plan is now Free"]);
  });
});

describe("preferences and addresses", () => {
  it("a category turned off: no e-mail, the bell still has it", async () => {
    const prefs = await t.call("GET", "/api/notifications/preferences", { token: maya.token });
    expect(prefs.status).toBe(200);
    expect(prefs.body.email_verified).toBe(true);
    expect(prefs.body.categories).toContainEqual({ category: "alert_billing", enabled: true });
    expect(prefs.body.categories).toContainEqual({ category: "digest_weekly", enabled: false });
    const off = await t.call("PUT", "/api/notifications/preferences", {
      token: maya.token,
      body: { category: "alert_billing", enabled: false },
    });
    expect(off.status).toBe(200);
    expect(off.body.categories).toContainEqual({ category: "alert_billing", enabled: false });
    const bad = await t.call("PUT", "/api/notifications/preferences", {
      token: maya.token,
      body: { category: "account", enabled: false },
    });
    expect(bad.status).toBe(404);
    expect(bad.body.detail).toMatch(/Unknown notification category/);

    await t.ctx.alerts.billingEvent({
      userId: maya.user.id,
      eventId: "evt_test_failed_2",
      type: "invoice.payment_failed",
      before: "pro",
      after: "pro",
      periodEnd: null,
    });
    const entries = await notificationsOf(maya.user.id, "alert_billing");
    expect(entries).toHaveLength(3);
    const second = await t.ctx.notifications.byKey("alert:payment-failed:evt_test_failed_2");
    expect(second?.mail_skipped).toBe("unsubscribed");
    const mails = (await delivered(maya)).filter(
      (m) => m.subject === "Your Keepsake payment failed",
    );
    expect(mails).toHaveLength(1);
    await t.call("PUT", "/api/notifications/preferences", {
      token: maya.token,
      body: { category: "alert_billing", enabled: true },
    });
  });

  it("an unverified address gets no alert e-mail; the bell does", async () => {
    const u = await t.signUp();
    await t.ctx.alerts.billingEvent({
      userId: u.user.id,
      eventId: "evt_test_failed_unverified",
      type: "invoice.payment_failed",
      before: "premium",
      after: "premium",
      periodEnd: null,
    });
    const entries = await notificationsOf(u.user.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.mail_skipped).toBe("address not verified");
    expect(await delivered(u)).toHaveLength(0);
    const prefs = await t.call("GET", "/api/notifications/preferences", { token: u.token });
    expect(prefs.body.email_verified).toBe(false);
  });

  it("the weekly digest is off by default, and once a week when on", async () => {
    const digests = async () =>
      (await delivered(maya)).filter((m) => m.subject === "Your Keepsake week");
    await t.ctx.alerts.weeklyDigest();
    expect(await digests()).toHaveLength(0);
    await t.call("PUT", "/api/notifications/preferences", {
      token: maya.token,
      body: { category: "digest_weekly", enabled: true },
    });
    await t.ctx.alerts.weeklyDigest();
    await t.ctx.alerts.weeklyDigest();
    const mails = await digests();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain("posts are safe in your Drive");
    // No bell entry for the digest.
    expect(await notificationsOf(maya.user.id, "digest_weekly")).toHaveLength(0);
  });
});

describe("the bell", () => {
  it("lists, counts unread, marks one and all as read; another user's entry is not found", async () => {
    const list = await t.call("GET", "/api/notifications", { token: maya.token });
    expect(list.status).toBe(200);
    expect(list.body.unread).toBeGreaterThan(2);
    // An unread entry: one whose cause was already fixed is shown resolved and counts as read.
    const first = list.body.notifications.find((n: { read: boolean }) => !n.read);
    const read = await t.call("POST", `/api/notifications/${first.id}/read`, {
      token: maya.token,
    });
    expect(read.status).toBe(200);
    expect(read.body.unread).toBe(list.body.unread - 1);
    const other = await t.call("POST", `/api/notifications/${first.id}/read`, {
      token: lumen.token,
    });
    expect(other.status).toBe(404);
    expect(
      (await t.call("POST", "/api/notifications/not-a-uuid/read", { token: maya.token })).status,
    ).toBe(422);
    const all = await t.call("POST", "/api/notifications/read-all", { token: maya.token });
    expect(all.body.unread).toBe(0);
    const count = await t.call("GET", "/api/notifications/unread-count", { token: maya.token });
    expect(count.body).toEqual({ unread: 0 });
    expect((await t.call("GET", "/api/notifications")).status).toBe(401);
  });
});
