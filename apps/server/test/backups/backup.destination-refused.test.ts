import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { backupPostJob } from "../../src/backups/jobs/backup-post.job.ts";
import { encryptSecret } from "../../src/lib/crypto.ts";
import { deliverMailJob } from "../../src/mail/mail.jobs.ts";
import { reconnectWords } from "../../src/providers/failure-words.ts";
import { syncAccountJob } from "../../src/sync/jobs/sync-account.job.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { chooseDestination, connectDestination } from "../support/destination-connect.ts";
import { s3Settings } from "../support/destinations.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

// A destination that refuses Keepsake's writes — Dropbox's no_write_permission, OneDrive's
// 403 accessDenied, an S3 bucket that is gone — is named as the cause, with its fix in Settings:
// the backup's words, the health state's failing destination. Before, every destination but
// Google Drive recorded "Instagram did not allow Keepsake to read this post", the health state
// blamed no destination, and its fix was a retry that could not succeed.
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;

beforeAll(async () => {
  t = await createSandboxedApp(
    {},
    {
      jobs: [deliverMailJob, syncAccountJob, backupPostJob, accountMailJob],
      engineSettings: FAST_ENGINE,
    },
  );
  h = backupHelpers(t);
}, 60_000);
afterEach(async () => {
  await h.control("/faults", { method: "DELETE" });
});
afterAll(async () => {
  await t?.close();
});

/** A new user with one Instagram account (one post) backed up to `kind`, no sync yet. */
async function backedUpTo(kind: "dropbox" | "onedrive" | "s3") {
  const { u, account } = await h.userWithAccount(1);
  await connectDestination(t, u.token, kind, [account.id]);
  await t.rows.sync.deleteSyncJobsOfUser(u.user.id);
  return { u, account };
}

const CASES = [
  {
    kind: "dropbox",
    fault: { endpoint: "dropbox.files/upload", error: "dropbox:no_write_permission" },
    words:
      "Dropbox: Keepsake is not allowed to write to its app folder. Reconnect Dropbox in Settings and allow access.",
    fix: "Reconnect Dropbox",
  },
  {
    kind: "onedrive",
    fault: { endpoint: "onedrive.items", error: "onedrive:accessDenied" },
    words:
      "OneDrive: Keepsake is not allowed to write to its app folder. Reconnect OneDrive in Settings and allow access.",
    fix: "Reconnect OneDrive",
  },
  {
    kind: "s3",
    fault: { endpoint: "s3.put", error: "s3:NoSuchBucket" },
    words:
      "The S3 storage: the bucket does not exist. Check the bucket's name in Settings, or create the bucket.",
    fix: "Check your S3 storage",
  },
] as const;

describe("a destination that refuses the writes is named, with its fix", () => {
  for (const c of CASES) {
    it(`${c.kind}: the backup records the destination's words and the health state says it is failing; the next sync after the fix backs the post up`, async () => {
      const { u, account } = await backedUpTo(c.kind);

      await h.control("/faults", { body: { ...c.fault, count: 100 } });
      const run = await h.syncAndDrain(u.user.id, account.id);
      const backups = await h.backups(u.user.id);
      expect(backups.length).toBeGreaterThan(0);
      expect(run.job?.posts_failed).toBe(backups.length);
      for (const b of backups)
        expect(b).toMatchObject({
          status: "failed",
          destination: c.kind,
          error_message: c.words,
          retry_on_sync: true,
        });

      const health = (await t.call("GET", "/api/sync/health", { token: u.token })).body;
      expect(health.destinations).toEqual([
        expect.objectContaining({ kind: c.kind, state: "failing" }),
      ]);
      expect(health.destinations[0].cause).toContain(c.words);
      // Fixed in Settings, not by a retry.
      const fix = { label: c.fix, path: "/settings?tab=connections" };
      expect(health.destinations[0].fix).toEqual(fix);
      expect(health).toMatchObject({ state: "attention", headline: "Some backups failed", fix });
      expect(health.cause).toContain(c.words);
      expect(JSON.stringify(health)).not.toMatch(/Instagram did not allow/);

      // Fixed (here: the fault is gone): the next sync takes the refused backup.
      await h.control("/faults", { method: "DELETE" });
      const again = await h.syncAndDrain(u.user.id, account.id);
      expect(again.job?.posts_failed).toBe(0);
      for (const b of await h.backups(u.user.id)) expect(b.status).toBe("completed");
    }, 120_000);
  }
});

describe("S3 storage saved before its endpoint was checked (S3_PRIVATE_ENDPOINTS=false)", () => {
  let live: SandboxedApp;
  beforeAll(async () => {
    live = await createSandboxedApp(
      { S3_PRIVATE_ENDPOINTS: "false" },
      {
        jobs: [deliverMailJob, syncAccountJob, backupPostJob, accountMailJob],
        engineSettings: FAST_ENGINE,
      },
    );
  }, 60_000);
  afterAll(async () => {
    await live?.close();
  });

  it("an endpoint on Keepsake's own network: no request leaves, the backup names the address and the fix", async () => {
    const lh = backupHelpers(live);
    const { u, account } = await lh.userWithAccount(1);
    // As an earlier version saved it: the API refuses this endpoint now.
    const settings = s3Settings(live.sandbox);
    await live.ctx.db
      .insertInto("destination_connections")
      .values({
        user_id: u.user.id,
        kind: "s3",
        external_id: `${settings.endpoint}/${settings.bucket}`,
        label: `${settings.bucket} at 127.0.0.1`,
        credentials_encrypted: encryptSecret(
          live.ctx.secrets.encryptionKey,
          JSON.stringify(settings),
        ),
      })
      .execute();
    expect((await chooseDestination(live, u.token, account.id, "s3")).status).toBe(200);
    await live.rows.sync.deleteSyncJobsOfUser(u.user.id);
    await lh.control("/calls", { method: "DELETE" });

    const run = await lh.syncAndDrain(u.user.id, account.id);
    const backups = await lh.backups(u.user.id);
    expect(backups.length).toBeGreaterThan(0);
    expect(run.job?.posts_failed).toBe(backups.length);
    for (const b of backups) {
      expect(b.status).toBe("failed");
      expect(b.error_message).toMatch(
        /^The S3 storage: the endpoint 127\.0\.0\.1 is an address on Keepsake's own network, which Keepsake does not call\. Enter the storage's public endpoint in Settings\.$/,
      );
    }
    const calls = await lh.calls();
    expect(Object.keys(calls).filter((k) => k.startsWith("s3."))).toEqual([]);
    const health = (await live.call("GET", "/api/sync/health", { token: u.token })).body;
    expect(health.destinations).toEqual([
      expect.objectContaining({ kind: "s3", state: "failing" }),
    ]);
    expect(health.cause).toContain("Enter the storage's public endpoint in Settings.");
    expect(health.fix).toEqual({
      label: "Check your S3 storage",
      path: "/settings?tab=connections",
    });
  }, 120_000);
});

describe("a destination that refuses the credential itself, even read again", () => {
  const KEY_CASES = [
    {
      kind: "s3",
      fault: { endpoint: "s3.put", error: "s3:InvalidAccessKeyId" },
      words: reconnectWords.s3,
      fix: "Enter new S3 keys",
    },
    {
      kind: "dropbox",
      fault: { endpoint: "dropbox.files/upload", error: "dropbox:invalid_access_token" },
      words: reconnectWords.dropbox,
      fix: "Reconnect Dropbox",
    },
    {
      kind: "onedrive",
      fault: { endpoint: "onedrive.items", error: "onedrive:InvalidAuthenticationToken" },
      words: reconnectWords.onedrive,
      fix: "Reconnect OneDrive",
    },
  ] as const;
  for (const c of KEY_CASES) {
    it(`${c.kind}: the connection is marked, the health state is broken (not ready) until the user reconnects, then the backups resume`, async () => {
      const { u, account } = await backedUpTo(c.kind);

      await h.control("/faults", { body: { ...c.fault, count: 1000 } });
      await h.syncAndDrain(u.user.id, account.id);
      for (const b of await h.backups(u.user.id))
        expect(b).toMatchObject({ status: "failed", error_message: c.words });
      const entry = async () =>
        (
          (await t.call("GET", "/api/destinations", { token: u.token })).body.destinations as {
            kind: string;
          }[]
        ).find((d) => d.kind === c.kind);
      expect(await entry()).toMatchObject({ needs_reconnect: true, status_reason: c.words });
      const health = (await t.call("GET", "/api/sync/health", { token: u.token })).body;
      expect(health).toMatchObject({
        state: "broken",
        ready: false,
        fix: { label: c.fix, path: "/settings?tab=connections" },
      });
      expect(health.destinations[0]).toMatchObject({ kind: c.kind, state: "needs_reconnection" });

      // The user reconnects (new keys saved, Dropbox's consent again): the backups resume.
      await h.control("/faults", { method: "DELETE" });
      await connectDestination(t, u.token, c.kind, [account.id]);
      expect(await entry()).toMatchObject({ needs_reconnect: false });
      await t.rows.sync.deleteSyncJobsOfUser(u.user.id);
      await h.syncAndDrain(u.user.id, account.id);
      for (const b of await h.backups(u.user.id)) expect(b.status).toBe("completed");
    }, 120_000);
  }
});
