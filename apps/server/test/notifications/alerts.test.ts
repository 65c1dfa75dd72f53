import { DEMO_GOOGLE } from "@keepsake/sandbox";
import { beforeAll, describe, expect, it } from "vitest";
import { alertsSuite, type Connected, HOUR } from "../support/alerts.ts";
import type { backupHelpers } from "../support/backup.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

// Alerts detected on the server (support/alerts.ts): a lost connection, failing backups, stale
// syncs and lost stories. Billing alerts, preferences and the bell: alerts.bell.test.ts.
const suite = alertsSuite();
const { delivered, notificationsOf, subjects, runCheck, raceChecks } = suite;
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let lumen: Connected;
let maya: Connected;
beforeAll(() => {
  ({ t, h, lumen, maya } = suite.get());
});

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
