import { DEMO_GOOGLE, SANDBOX_PRICES } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { backupPostJob } from "../../src/backups/jobs/backup-post.job.ts";
import { deliverMailJob, mailSweepJob } from "../../src/mail/mail.jobs.ts";
import { alertsCheckJob } from "../../src/notifications/alerts.jobs.ts";
import { syncAccountJob } from "../../src/sync/jobs/sync-account.job.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { billingHelpers, stripeEnv } from "../support/billing.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

// Issue 36: the conditions that had only an alert — a paid plan's backups a day behind, stories
// lost, a payment Stripe could not take — are health states with a cause and a fix, and each
// clears once its cause is gone (alerts.health-words.test.ts: the alerts use their words).
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
const HOUR = 3600_000;

beforeAll(async () => {
  t = await createSandboxedApp(stripeEnv, {
    // The queues exist (a retry queues a backup); no worker runs them: each test does.
    jobs: [deliverMailJob, mailSweepJob, syncAccountJob, backupPostJob, accountMailJob],
    engineSettings: FAST_ENGINE,
  });
  h = backupHelpers(t);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

type User = Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;

const health = async (u: User) => {
  const res = await t.call("GET", "/api/sync/health", { token: u.token });
  expect(res.status).toBe(200);
  return res.body;
};
const runCheck = () => alertsCheckJob.handler({}, t.ctx, { id: "test", retryCount: 0 });
const alertsOf = async (u: User, category: string) =>
  (await t.call("GET", "/api/notifications", { token: u.token })).body.notifications.filter(
    (n: { category: string }) => n.category === category,
  );

/** A Pro user with an Instagram account of its own (posts listed, none backed up) and Drive. */
async function newUser(google: string, posts = 3): Promise<User & { posts: string[] }> {
  const { accounts } = await h.control<{ accounts: { id: string }[] }>("/instagram/accounts", {
    body: { count: 1, posts },
  });
  const u = await h.connectedUser({ instagram: accounts[0]!.id, google, tier: "pro" });
  expect((await h.listPosts(u)).result.outcome).toBe("done");
  const rows = await t.ctx.db
    .selectFrom("posts")
    .select("id")
    .where("account_id", "=", u.accountId)
    .orderBy("id")
    .execute();
  return { ...u, posts: rows.map((p) => p.id) };
}

describe("health states of the alerts' conditions", () => {
  it("a paid plan's backups a day behind: stale with Backup now; a completed sync clears it and resolves the alert", async () => {
    const u = await newUser(DEMO_GOOGLE.jordan.sub);
    const last = new Date(t.clock.now().getTime() - 30 * HOUR);
    await t.rows.sync.upsertSyncState({ account_id: u.accountId, last_sync_at: last });
    let s = await health(u);
    expect(s.accounts[0]).toMatchObject({
      state: "stale",
      fix: { label: "Backup now", path: "/dashboard" },
      since: last.toISOString(),
    });
    expect(s.accounts[0].cause).toMatch(/^The last successful backup sync of @.+ was on /);
    expect(s).toMatchObject({
      state: "attention",
      ready: true,
      headline: `@${s.accounts[0].username} hasn't been backed up for a day`,
    });
    await runCheck();
    expect(await alertsOf(u, "alert_sync_stale")).toHaveLength(1);

    // The free plan has no automatic backups: never stale.
    await t.setTier(u.user.id, "free");
    expect((await health(u)).accounts[0].state).toBe("ok");
    await t.setTier(u.user.id, "pro");
    expect((await health(u)).accounts[0].state).toBe("stale");

    const { job } = await h.syncAndDrain(u.user.id, u.accountId);
    expect(job?.status).toBe("completed");
    s = await health(u);
    expect(s.accounts[0].state).toBe("ok");
    expect(s.state).toBe("ready");
    await runCheck();
    const [alert] = await alertsOf(u, "alert_sync_stale");
    expect(alert.resolved_at).not.toBeNull();
  }, 120_000);

  it("stories that expired unsaved: stories_lost with View backups until a backup of the account completes", async () => {
    const u = await newUser(DEMO_GOOGLE.maya.sub);
    expect(u.posts.length).toBeGreaterThanOrEqual(3);
    const [a, b, other] = u.posts as [string, string, string];
    for (const id of [a, b]) {
      await t.rows.sync.updatePost(id, {
        media_product_type: "STORY",
        posted_at: new Date(t.clock.now().getTime() - 30 * HOUR),
      });
      await t.rows.backups.upsertBackup({
        post_id: id,
        user_id: u.user.id,
        account_id: u.accountId,
        status: "pending",
        error_message: null,
      });
    }
    let s = await health(u);
    expect(s.accounts[0]).toMatchObject({
      state: "stories_lost",
      fix: { label: "View backups", path: "/backups" },
      since: new Date(t.clock.now().getTime() - 6 * HOUR).toISOString(),
    });
    expect(s.accounts[0].cause).toBe(
      `2 stories of @${s.accounts[0].username} expired before Keepsake could save them: Instagram removes stories after 24 hours, so they can no longer be saved.`,
    );
    expect(s).toMatchObject({ state: "attention", ready: true });

    // Backups work again: another post's backup completes after the stories ended.
    await t.ctx.backups.retry(u.user.id, other);
    await t.ctx.backupEngine.run(other, { retryCount: 0, retryLimit: 3 });
    s = await health(u);
    expect(s.accounts[0].state).toBe("ok");
  }, 120_000);

  it("a payment Stripe could not take: payment_failed with Update payment method until Stripe is paid", async () => {
    const b = billingHelpers(t);
    const u = await newUser(DEMO_GOOGLE.sam.sub, 1);
    await b.newEvents();
    await b.checkout(u.token, SANDBOX_PRICES.pro.monthly);
    await b.deliverAll(await b.newEvents());
    const customer = (await b.stripe.customers.list({ email: u.user.email })).data[0]!;
    const sub = (await b.subscriptionOf(customer.id))!;
    await h.control("/stripe/payment_failed", { body: { subscription: sub.id } });
    await b.deliverAll(await b.newEvents());
    let s = await health(u);
    expect(s.plan).toMatchObject({
      state: "payment_failed",
      fix: { label: "Update payment method", path: "/settings?tab=subscription" },
    });
    expect(s.plan.since).not.toBeNull();
    expect(s).toMatchObject({
      state: "attention",
      ready: true,
      headline: "Payment failed: update your payment method",
      cause: s.plan.cause,
    });

    // Stripe's next try succeeds (the sandbox renews the period and pays the invoice).
    await h.control("/clock", { body: { advance_seconds: 32 * 24 * 3600 } });
    await b.deliverAll(await b.newEvents());
    s = await health(u);
    expect(s.plan).toEqual({ state: "ok", cause: null, fix: null, since: null });
    expect(s.state).not.toBe("attention");
  }, 120_000);
});
