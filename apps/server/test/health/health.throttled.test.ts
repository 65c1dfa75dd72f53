import { DEMO_GOOGLE } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { backupPostJob } from "../../src/backups/jobs/backup-post.job.ts";
import { deliverMailJob, mailSweepJob } from "../../src/mail/mail.jobs.ts";
import { alertsCheckJob } from "../../src/notifications/alerts.jobs.ts";
import { syncAccountJob } from "../../src/sync/jobs/sync-account.job.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

// Issue 36: a provider limiting Keepsake's requests (the sandbox throttles Drive's uploads and
// Instagram's Graph API) is a health state of its own, "throttled", with nothing for the user
// to do; it clears by itself once a later backup succeeds. FAST_ENGINE tries each call 4 times
// in one attempt and sleeps at most 5 s in-process (a longer Retry-After defers the backup).
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;

beforeAll(async () => {
  t = await createSandboxedApp(
    {},
    {
      // The queues exist (a retry queues the backup); no worker runs them: each test does.
      jobs: [deliverMailJob, mailSweepJob, syncAccountJob, backupPostJob, accountMailJob],
      engineSettings: FAST_ENGINE,
    },
  );
  h = backupHelpers(t);
}, 60_000);
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  await h.control("/faults", { method: "DELETE" });
});

type User = Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;

const health = async (u: User) => {
  const res = await t.call("GET", "/api/sync/health", { token: u.token });
  expect(res.status).toBe(200);
  return res.body;
};
const fault = (endpoint: string, error: string, count: number, retryAfter?: number) =>
  h.control("/faults", {
    body: {
      endpoint,
      error,
      count,
      ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
    },
  });

/** A Pro user with an Instagram account of its own, its posts listed, nothing backed up. */
async function newUser(google: string): Promise<User & { posts: string[] }> {
  const { accounts } = await h.control<{ accounts: { id: string }[] }>("/instagram/accounts", {
    body: { count: 1, posts: 2 },
  });
  const u = await h.connectedUser({ instagram: accounts[0]!.id, google, tier: "pro" });
  expect((await h.listPosts(u)).result.outcome).toBe("done");
  const posts = await t.ctx.db
    .selectFrom("posts")
    .select("id")
    .where("account_id", "=", u.accountId)
    .orderBy("id")
    .execute();
  expect(posts.length).toBeGreaterThanOrEqual(2);
  return { ...u, posts: posts.map((p) => p.id) };
}

/** One attempt of the post's backup, queued as the retry endpoint does, as a worker runs it. */
async function attempt(u: User, postId: string, retryCount = 0) {
  if (retryCount === 0) await t.ctx.backups.retry(u.user.id, postId);
  const outcome = await t.ctx.backupEngine.run(postId, { retryCount, retryLimit: 5 });
  const backup = await t.ctx.db
    .selectFrom("backups")
    .select(["status", "error_message"])
    .where("post_id", "=", postId)
    .executeTakeFirstOrThrow();
  return { outcome, backup };
}

const NOTHING_TO_DO = /Keepsake retries on its own\. Nothing to do\./;

describe("throttled", () => {
  it("Drive limits uploads: Drive is throttled (not broken, nothing to do) until a backup succeeds; /api/v1 says the same", async () => {
    const u = await newUser(DEMO_GOOGLE.jordan.sub);
    // Every try of the attempt is refused: the backup goes back to pending for a retry.
    await fault("drive.upload*", "drive:userRateLimitExceeded", 4);
    const first = await attempt(u, u.posts[0]!);
    expect(first.outcome.outcome).toBe("retry");
    expect(first.backup).toEqual({
      status: "pending",
      error_message: "Retrying: Google Drive is limiting requests right now",
    });

    let s = await health(u);
    expect(s.destinations[0]).toMatchObject({
      kind: "google_drive",
      state: "throttled",
      fix: { label: "See waiting backups", path: "/backups?filter=pending" },
    });
    expect(s.destinations[0].cause).toBe(
      "Google Drive is limiting how fast Keepsake can write: 1 backup waits and Keepsake retries on its own. Nothing to do.",
    );
    expect(s.destinations[0].since).not.toBeNull();
    // Backups still run: attention, never broken or "reconnect", and still ready.
    expect(s).toMatchObject({
      state: "attention",
      ready: true,
      headline: "Backups slowed: Google Drive is limiting requests",
      cause: s.destinations[0].cause,
      fix: s.destinations[0].fix,
    });
    expect(s.accounts[0].state).toBe("ok");
    const key = await t.call("POST", "/api/api-keys", { token: u.token, body: { name: "health" } });
    expect(key.status).toBe(201);
    const v1 = await t.call("GET", "/api/v1/health", { token: key.body.key });
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(s);
    // Nothing for the user to do: no alert.
    await alertsCheckJob.handler({}, t.ctx, { id: "test", retryCount: 0 });
    expect(
      (await t.call("GET", "/api/notifications", { token: u.token })).body.notifications,
    ).toEqual([]);

    // The limit is over: the retry goes through and the state clears by itself.
    const second = await attempt(u, u.posts[0]!, 1);
    expect(second.backup.status).toBe("completed");
    s = await health(u);
    expect(s.destinations[0]).toMatchObject({ state: "ok", cause: null, fix: null });
    expect(s).toMatchObject({ state: "ready", ready: true, headline: "✓ Ready for backup" });
  }, 120_000);

  it("a Retry-After too long to sleep defers the backup, naming Drive's limit; a later backup clears it", async () => {
    const u = await newUser(DEMO_GOOGLE.maya.sub);
    await fault("drive.upload*", "drive:rateLimitExceeded", 1, 60);
    const first = await attempt(u, u.posts[0]!);
    expect(first.outcome).toMatchObject({ outcome: "deferred", delayMs: 60_000 });
    expect(first.backup).toEqual({
      status: "pending",
      error_message: "Waiting: Google Drive is limiting requests right now",
    });
    let s = await health(u);
    expect(s.destinations[0].state).toBe("throttled");
    expect(s.destinations[0].cause).toMatch(NOTHING_TO_DO);

    // Another post's backup goes through: Drive takes writes again, the waiting one is retried
    // on its own, and the state clears although it still waits.
    const other = await attempt(u, u.posts[1]!);
    expect(other.backup.status).toBe("completed");
    s = await health(u);
    expect(s.destinations[0].state).toBe("ok");
    expect(s.state).toBe("ready");
  }, 120_000);

  it("Instagram limits the Graph API: the account is throttled (Drive is fine) until a backup succeeds", async () => {
    const u = await newUser(DEMO_GOOGLE.sam.sub);
    // Expired media URLs send the backup to the Graph API, which refuses every try.
    await h.control("/cdn/expire", { method: "POST" });
    await fault("ig.media.get", "graph:4", 4);
    const first = await attempt(u, u.posts[0]!);
    expect(first.outcome.outcome).toBe("retry");
    expect(first.backup.error_message).toBe("Retrying: Instagram is limiting requests right now");
    let s = await health(u);
    expect(s.destinations[0].state).toBe("ok");
    const account = s.accounts.find((a: { account_id: string }) => a.account_id === u.accountId);
    expect(account).toMatchObject({
      state: "throttled",
      fix: { label: "See waiting backups", path: "/backups?filter=pending" },
    });
    expect(account.cause).toMatch(/^Instagram is limiting requests for @/);
    expect(account.cause).toMatch(NOTHING_TO_DO);
    expect(s).toMatchObject({
      state: "attention",
      ready: true,
      headline: "Backups slowed: Instagram is limiting requests",
    });

    const second = await attempt(u, u.posts[0]!, 1);
    expect(second.backup.status).toBe("completed");
    s = await health(u);
    expect(s.accounts[0].state).toBe("ok");
    expect(s.state).toBe("ready");
  }, 120_000);

  it("a sync Instagram's limit ended: the account is throttled until a sync completes", async () => {
    const u = await newUser(DEMO_GOOGLE.jordan.sub);
    await fault("ig.media.list", "graph:4", 4);
    const started = await t.ctx.sync.runs.refreshPosts(u.user.id, u.accountId);
    // The queue's last retry: the sync ends failed with the limit's words.
    const r = await t.ctx.syncEngine.run(
      { accountId: u.accountId, syncJobId: started.sync_job.id, kind: "manual", mode: "refresh" },
      { retryCount: 3, retryLimit: 3 },
    );
    expect(r.outcome).toBe("done");
    let s = await health(u);
    expect(s.accounts[0]).toMatchObject({ state: "throttled", fix: null });
    expect(s.accounts[0].cause).toMatch(/Keepsake tries again at the next sync\. Nothing to do\./);
    expect(s.accounts[0].since).not.toBeNull();
    expect(s.last_run).toMatchObject({ outcome: "failed" });

    expect((await h.listPosts(u)).result.outcome).toBe("done");
    s = await health(u);
    expect(s.accounts[0].state).toBe("ok");
  }, 120_000);
});
