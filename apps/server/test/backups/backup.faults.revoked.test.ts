import { syncMessages as m } from "@keepsake/contracts";
import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { reconnectWords } from "../../src/providers/failure-words.ts";
import type { backupHelpers } from "../support/backup.ts";
import { backupFaultsSuite } from "../support/backup-faults.ts";
import type { SandboxedApp } from "../support/sandbox.ts";

// Backups stop, saying why, when Drive is full or a grant is revoked, and resume once fixed
// (support/backup-faults.ts). Transient faults: backup.faults.test.ts.
const suite = backupFaultsSuite();
const { pick, backUp, copiesOf } = suite;
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let user: ReturnType<typeof suite.get>["user"];
beforeAll(() => {
  ({ t, h, user } = suite.get());
});

describe("resilience", () => {
  it("pauses backups into a full Drive, saying so; Retry All Failed and the next sync resume them once space is freed", async () => {
    const [first, second, third] = [
      await pick("image", 2),
      await pick("image", 5),
      await pick("image", 6),
    ];
    const fill = () =>
      h.control("/drive/quota", { body: { email: DEMO_GOOGLE.jordan.email, fill: true } });
    const free = () =>
      h.control("/drive/quota", {
        body: {
          email: DEMO_GOOGLE.jordan.email,
          limit_bytes: 50 * 1024 ** 3,
          free_bytes: 40 * 1024 ** 3,
        },
      });
    const statusOf = async (postId: string) =>
      (
        await t.ctx.db
          .selectFrom("backups")
          .select("status")
          .where("post_id", "=", postId)
          .executeTakeFirstOrThrow()
      ).status;
    await fill();
    try {
      for (const post of [first, second]) {
        const { outcome, backup } = await backUp(post.id, 3);
        expect(outcome?.outcome).toBe("failed");
        expect(backup.error_message).toBe(m.driveFull);
        // Not retried at once: Drive stays full until the user acts.
        expect(backup.attempts).toBe(1);
        expect(await copiesOf(post.instagram_id)).toHaveLength(0);
      }
    } finally {
      await free();
    }

    // "Retry All Failed" from the API: every failed backup at once.
    const all = await t.call("POST", "/api/sync/backups/retry-failed", {
      token: user.token,
      body: {},
    });
    expect(all.status).toBe(200);
    expect(all.body.retried).toBeGreaterThanOrEqual(2);
    expect(all.body.message).toBe(m.retryAllStarted(all.body.retried));
    expect([await statusOf(first.id), await statusOf(second.id)]).toEqual(["pending", "pending"]);
    await h.drain(user.user.id);
    for (const post of [first, second]) {
      expect(await statusOf(post.id)).toBe("completed");
      expect(await copiesOf(post.instagram_id)).toHaveLength(1);
    }
    const none = await t.call("POST", "/api/sync/backups/retry-failed", {
      token: user.token,
      body: {},
    });
    expect(none.body).toEqual({ message: m.noFailedBackups, retried: 0 });
    const bad = await t.call("POST", "/api/sync/backups/retry-failed", {
      token: user.token,
      body: { account_id: "not-an-id" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toBeTruthy();

    // The next sync (Start Backup) takes up a backup a full Drive paused, once space is freed.
    await fill();
    try {
      expect((await backUp(third.id)).backup.error_message).toBe(m.driveFull);
    } finally {
      await free();
    }
    // The account's other posts count as backed up here, so the sync has only this one to do.
    const stand = await t.rows.backups.completeUnbackedPostsOf(user.accountId);
    try {
      const { job } = await h.syncAndDrain(user.user.id, user.accountId);
      expect(job).toMatchObject({ status: "completed", posts_total: 1, posts_processed: 1 });
      expect(await statusOf(third.id)).toBe("completed");
      expect(await copiesOf(third.instagram_id)).toHaveLength(1);
    } finally {
      await t.rows.backups.deleteBackups(stand.map((r) => r.id));
    }
  });

  it("stops every backup of the user when Google revokes the grant", async () => {
    const a = await pick("image", 3);
    const b = await pick("image", 4);
    const grant = { body: { google_email: DEMO_GOOGLE.jordan.email } };
    await h.control("/tokens/revoke", grant);
    // The sandbox accepts the grant again afterwards, as it was before this test.
    onTestFinished(async () => {
      await h.control("/tokens/unrevoke", grant);
    });
    const first = await backUp(a.id, 3);
    expect(first.backup.status).toBe("failed");
    expect(first.backup.error_message).toBe(reconnectWords.google);
    const g = await t.ctx.db
      .selectFrom("google_connections")
      .selectAll()
      .where("user_id", "=", user.user.id)
      .executeTakeFirstOrThrow();
    expect(g.status).toBe("needs_reconnection");
    await h.control("/calls", { method: "DELETE" });
    const second = await backUp(b.id);
    expect(second.backup.status).toBe("failed");
    expect(second.backup.error_message).toBe(reconnectWords.google);
    const calls = await h.calls();
    expect(Object.keys(calls).filter((k) => k.startsWith("drive."))).toEqual([]);
    expect((await t.call("POST", "/api/sync/start", { token: user.token })).status).toBe(400);

    // The user reconnects Google Drive, so the tests after this one have a Drive again (the
    // sync that reconnecting queues is not this test's).
    await t.connectDrive(user.token, DEMO_GOOGLE.jordan.sub);
    await t.ctx.pool.query(
      `DELETE FROM ${t.ctx.queueSchema}.job WHERE name = 'sync-account' AND data->>'accountId' = $1`,
      [user.accountId],
    );
    await t.rows.sync.deleteSyncJobsOfAccount(user.accountId);
    const again = await t.ctx.db
      .selectFrom("google_connections")
      .select("status")
      .where("user_id", "=", user.user.id)
      .executeTakeFirstOrThrow();
    expect(again.status).toBe("active");
  });

  it("marks the account for reconnection when Instagram revokes the token, and stops its jobs", async () => {
    const video = await pick("video", 3);
    const grant = { body: { instagram_user_id: DEMO_IG.business.id } };
    await h.control("/tokens/revoke", grant);
    onTestFinished(async () => {
      await h.control("/tokens/unrevoke", grant);
    });
    await h.control("/cdn/expire", { method: "POST" });
    // The sync job row is made directly: the Instagram account is what this test revokes.
    const job0 = await t.ctx.syncRepos.runs.insertSyncJob({
      user_id: user.user.id,
      account_id: user.accountId,
      job_type: "manual",
      mode: "refresh",
      now: new Date(),
    });
    const started = { sync_job: job0! };
    const r = await t.ctx.syncEngine.run(
      {
        accountId: user.accountId,
        syncJobId: started.sync_job.id,
        kind: "manual",
        mode: "refresh",
      },
      { retryCount: 0, retryLimit: 3 },
    );
    expect(r.outcome).toBe("done");
    const job = await t.ctx.syncRepos.runs.findSyncJob(started.sync_job.id);
    expect(job?.status).toBe("failed");
    expect(job?.error_message).toBe(reconnectWords.instagram(DEMO_IG.business.username));
    const account = await t.ctx.db
      .selectFrom("instagram_accounts")
      .selectAll()
      .where("id", "=", user.accountId)
      .executeTakeFirstOrThrow();
    expect(account.status).toBe("needs_reconnection");
    await h.control("/calls", { method: "DELETE" });
    await t.rows.backups.upsertPendingBackup({
      post_id: video.id,
      user_id: user.user.id,
      account_id: user.accountId,
    });
    const out = await t.ctx.backupEngine.run(video.id, { retryCount: 0, retryLimit: 5 });
    expect(out).toEqual({
      outcome: "failed",
      message: reconnectWords.instagram(DEMO_IG.business.username),
    });
    expect(await h.calls()).toEqual({});
  });
});
