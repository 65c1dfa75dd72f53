import { DEMO_IG, SANDBOX_PRICES } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accountLimit,
  hasAccountsPanel,
  hasApiAccess,
  hasAutomaticBackups,
  normalizeTier,
  postLimit,
} from "../../src/billing/tier-rules.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { syncSchedulerJob } from "../../src/sync/jobs/sync-scheduler.job.ts";
import { spreadOffsetSeconds } from "../../src/sync/schedule.ts";
import { backupHelpers } from "../support/backup.ts";
import { billingHelpers, stripeEnv } from "../support/billing.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

describe("tier rules", () => {
  it("holds the limits of every plan", () => {
    expect(["free", "premium", "pro", "agency"].map(accountLimit)).toEqual([1, 1, 3, 10]);
    expect(["free", "premium", "pro", "agency"].map(postLimit)).toEqual([100, 5000, null, null]);
    expect(["free", "premium", "pro", "agency"].map(hasAutomaticBackups)).toEqual([
      false,
      true,
      true,
      true,
    ]);
    expect(["free", "premium", "pro", "agency"].map(hasAccountsPanel)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(hasApiAccess("pro")).toBe(true);
    expect(hasApiAccess("premium")).toBe(false);
  });

  it("maps legacy tier values and treats unknown ones as free", () => {
    expect(["FREE", "BASIC", "PRO", "PREMIUM"].map(normalizeTier)).toEqual([
      "free",
      "premium",
      "pro",
      "premium",
    ]);
    expect(normalizeTier("gold")).toBe("free");
    expect(normalizeTier(undefined)).toBe("free");
    expect(accountLimit("PRO")).toBe(3);
  });

  it("refuses a half Stripe configuration, naming the missing variable", () => {
    const env = stripeEnv("http://127.0.0.1:1");
    const { STRIPE_PRICE_AGENCY_ANNUAL: _, ...half } = env;
    expect(() => loadConfig(half)).toThrow(ConfigError);
    expect(() => loadConfig(half)).toThrow(/STRIPE_PRICE_AGENCY_ANNUAL/);
    expect(loadConfig({}).billing).toBeNull();
    expect(loadConfig(env).billing?.prices.pro.annual).toBe(SANDBOX_PRICES.pro.annual);
  });
});

let t: SandboxedApp;
let b: ReturnType<typeof billingHelpers>;
let h: ReturnType<typeof backupHelpers>;

beforeAll(async () => {
  t = await createSandboxedApp(stripeEnv);
  b = billingHelpers(t);
  h = backupHelpers(t);
});
afterAll(async () => {
  await t?.close();
});

async function queuedSyncs(): Promise<string[]> {
  const { rows } = await t.ctx.pool.query<{ account_id: string }>(
    `SELECT data->>'accountId' AS account_id FROM ${t.ctx.queueSchema}.job
      WHERE name = 'sync-account' AND state IN ('created', 'retry')`,
  );
  return rows.map((r) => r.account_id);
}
const clearQueuedSyncs = () =>
  t.ctx.pool.query(`DELETE FROM ${t.ctx.queueSchema}.job WHERE name = 'sync-account'`);
const runScheduler = () =>
  syncSchedulerJob.handler({}, t.ctx, { id: crypto.randomUUID(), retryCount: 0 });

describe("a plan's limits on every route and job, from upgrade to downgrade", () => {
  let user: Awaited<ReturnType<typeof h.connectedUser>>;
  let second: string;

  it("free: one account, 100 posts, no automatic backups, no per-account filter", async () => {
    user = await h.connectedUser();
    const refused = await b.connectInstagram(user.token, DEMO_IG.creator.id);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe(
      "Account limit reached. You can connect up to 1 account(s) with your free plan.",
    );
    // The sync job applies the post limit: lumen.studio has more than 100 posts.
    await h.listPosts(user);
    const stats = await t.call("GET", "/api/sync/dashboard/stats", { token: user.token });
    expect(stats.body).toMatchObject({ post_limit: 100, next_sync_in: null });
    expect(stats.body.posts_over_limit).toBeGreaterThan(0);
    await clearQueuedSyncs();
    await runScheduler();
    expect(await queuedSyncs()).toEqual([]);
    // Another user's account id as a filter is ignored, not an error, for plans without it.
    const posts = await t.call("GET", `/api/sync/posts?account_id=${crypto.randomUUID()}`, {
      token: user.token,
    });
    expect(posts.status).toBe(200);
  });

  it("after the webhook for Pro: a second account, unlimited posts, scheduled syncs", async () => {
    await b.newEvents();
    await b.checkout(user.token, SANDBOX_PRICES.pro.monthly);
    await b.deliverAll(await b.newEvents());
    t.clock.advance(60_000);
    const connected = await b.connectInstagram(user.token, DEMO_IG.creator.id);
    expect(String(connected.headers.location)).toContain("instagram_connected=true");
    const list = await t.call("GET", "/api/accounts/instagram-accounts", { token: user.token });
    expect(list.body).toMatchObject({ limit: 3, remaining_slots: 1, subscription_tier: "pro" });
    second = list.body.accounts.find((a: { id: string }) => a.id !== user.accountId).id;
    t.clock.advance(60_000);
    await h.listPosts(user);
    const stats = await t.call("GET", "/api/sync/dashboard/stats", { token: user.token });
    expect(stats.body.post_limit).toBeNull();
    expect(stats.body.posts_over_limit).toBe(0);
    expect(typeof stats.body.next_sync_in).toBe("number");
    await clearQueuedSyncs();
    await runScheduler();
    expect((await queuedSyncs()).sort()).toEqual([user.accountId, second].sort());
  });

  it("a downgrade to free keeps both accounts but pauses the newer one's syncs", async () => {
    const customer = (await b.stripe.customers.list({ email: user.user.email })).data[0]!;
    const sub = (await b.subscriptionOf(customer.id))!;
    await b.stripe.subscriptions.cancel(sub.id);
    await b.deliverAll(await b.newEvents());

    const list = await t.call("GET", "/api/accounts/instagram-accounts", { token: user.token });
    expect(list.body.subscription_tier).toBe("free");
    expect(list.body.accounts).toHaveLength(2);
    const paused = Object.fromEntries(
      list.body.accounts.map((a: { id: string; paused_by_plan: boolean }) => [
        a.id,
        a.paused_by_plan,
      ]),
    );
    expect(paused).toEqual({ [user.accountId]: false, [second]: true });

    // Free has no automatic backups at all; the paused account cannot be synced by hand.
    await clearQueuedSyncs();
    await runScheduler();
    expect(await queuedSyncs()).toEqual([]);
    const manual = await t.call("POST", "/api/sync/start", {
      token: user.token,
      body: { account_id: second },
    });
    expect(manual.status).toBe(403);
    expect(manual.body.detail).toContain("paused");
  });

  it("a downgrade to premium schedules only the kept account; the user can swap which", async () => {
    await b.checkout(user.token, SANDBOX_PRICES.premium.monthly);
    await b.deliverAll(await b.newEvents());
    await clearQueuedSyncs();
    await runScheduler();
    expect(await queuedSyncs()).toEqual([user.accountId]);

    const keep = await t.call("PUT", `/api/accounts/instagram-accounts/${second}/keep`, {
      token: user.token,
    });
    expect(keep.status).toBe(200);
    expect(keep.body.paused_accounts).toBe(1);
    await clearQueuedSyncs();
    await runScheduler();
    expect(await queuedSyncs()).toEqual([second]);
    const started = await t.call("POST", "/api/sync/start", { token: user.token });
    expect(started.status).toBe(200);
    expect(started.body.sync_jobs.map((j: { account_id: string }) => j.account_id)).toEqual([
      second,
    ]);

    const other = await t.signUp();
    const foreign = await t.call("PUT", `/api/accounts/instagram-accounts/${second}/keep`, {
      token: other.token,
    });
    expect(foreign.status).toBe(404);
  });

  it("disconnecting the kept account resumes the paused one", async () => {
    const res = await t.call("DELETE", `/api/accounts/instagram-accounts/${second}`, {
      token: user.token,
    });
    expect(res.status).toBe(200);
    const list = await t.call("GET", "/api/accounts/instagram-accounts", { token: user.token });
    expect(list.body.accounts.map((a: { paused_by_plan: boolean }) => a.paused_by_plan)).toEqual([
      false,
    ]);
  });

  it("deleting the user cancels the subscription and deletes the Stripe customer first", async () => {
    const customer = (await b.stripe.customers.list({ email: user.user.email })).data[0]!;
    const sub = (await b.subscriptionOf(customer.id))!;
    expect(sub.status).toBe("active");
    const res = await t.call("DELETE", "/api/auth/me", {
      token: user.token,
      body: { password: user.password },
    });
    expect(res.status).toBe(200);
    expect((await b.stripe.subscriptions.retrieve(sub.id)).status).toBe("canceled");
    expect((await b.stripe.customers.list({ email: user.user.email })).data).toEqual([]);
    const rows = await t.ctx.db.selectFrom("stripe_customers").selectAll().execute();
    expect(rows.some((r) => r.customer_id === customer.id)).toBe(false);
  });
});

describe("posts beyond the plan's limit", () => {
  it("a free user whose only unbacked posts are over the limit is offered no Backup Now", async () => {
    const { accounts } = await h.control<{ accounts: { id: string }[] }>("/instagram/accounts", {
      body: { count: 1, posts: 130 },
    });
    const u = await h.connectedUser({ instagram: accounts[0]!.id });
    await h.listPosts(u);
    const over = await t.ctx.db
      .selectFrom("posts")
      .select("instagram_id")
      .where("user_id", "=", u.user.id)
      .where("not_backed_up_reason", "is not", null)
      .execute();
    expect(over.length).toBeGreaterThan(0);
    // Everything within the plan is in Drive; only the posts the limit leaves out are not.
    await h.leaveOnlyToBackUp(u.user.id, new Set(over.map((p) => p.instagram_id)));
    const check = await t.call("GET", "/api/sync/check-new-posts", { token: u.token });
    expect(check.body).toEqual({
      has_new_posts: false,
      new_posts_count: 0,
      unbacked_posts_count: 0,
      failed_backups_count: 0,
      upgrade_message: "Upgrade to Premium for automatic backups every 10 minutes.",
    });
    // The header says how many posts the limit leaves out: the check does not say it again.
    const stats = await t.call("GET", "/api/sync/dashboard/stats", { token: u.token });
    expect(stats.body.posts_over_limit).toBe(over.length);
  });
});

describe("a plan change applies at once", () => {
  it("Free → Premium: the post limit lifts and the backups it unlocks start, with no scheduler run", async () => {
    let u = await h.connectedUser();
    // The test needs a moment after the interval's tick and before the account's slot: there is
    // none when the slot is the tick itself (offset 0, one account in 540; the countdown then
    // rightly shows the next interval's slot). Such an account is swapped for another.
    while (spreadOffsetSeconds(u.accountId) === 0) u = await h.connectedUser();
    await h.listPosts(u);
    const before = await t.call("GET", "/api/sync/dashboard/stats", { token: u.token });
    expect(before.body).toMatchObject({ post_limit: 100, next_sync_in: null });
    expect(before.body.posts_over_limit).toBeGreaterThan(0);
    // Two minutes before the account's slot in this interval: the scheduler's tick passed
    // while the user was on Free, so it queued nothing for this account.
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const offset = spreadOffsetSeconds(u.accountId);
    const ahead = Math.min(120, offset);
    let at = now - (now % 600) + offset - ahead;
    if (at < now) at += 600;
    t.clock.advance((at - now) * 1000);
    await clearQueuedSyncs();

    await b.newEvents();
    await b.checkout(u.token, SANDBOX_PRICES.premium.monthly);
    await b.deliverAll(await b.newEvents());

    const after = await t.call("GET", "/api/sync/dashboard/stats", { token: u.token });
    expect(after.body).toMatchObject({
      post_limit: 5000,
      posts_over_limit: 0,
      next_sync_in: Math.max(1, Math.ceil(ahead / 60)),
    });
    const marked = await t.ctx.db
      .selectFrom("posts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", u.user.id)
      .where("not_backed_up_reason", "is not", null)
      .executeTakeFirstOrThrow();
    expect(Number(marked.n)).toBe(0);
    // A backup sync runs now, and the slot the countdown shows has its scheduled sync queued.
    const status = await t.call("GET", "/api/sync/status", { token: u.token });
    expect(status.body).toMatchObject({ is_syncing: true, sync_job: { job_type: "manual" } });
    const { rows } = await t.ctx.pool.query<{ kind: string; delay: number }>(
      `SELECT data->>'kind' AS kind, extract(epoch FROM start_after - created_on)::int AS delay
         FROM ${t.ctx.queueSchema}.job
        WHERE name = 'sync-account' AND data->>'accountId' = $1 AND state = 'created'`,
      [u.accountId],
    );
    const byKind = Object.fromEntries(rows.map((r) => [r.kind, r.delay]));
    expect(byKind.manual).toBeLessThanOrEqual(1);
    expect(Math.abs((byKind.scheduled ?? -1000) - ahead)).toBeLessThanOrEqual(2);

    // The run it started backs up the posts the old limit kept out.
    const job = status.body.sync_job;
    await t.ctx.syncEngine.run(
      { accountId: u.accountId, syncJobId: job.id, kind: "manual", mode: "backup" },
      { retryCount: 0, retryLimit: 3 },
    );
    const pending = await t.ctx.db
      .selectFrom("backups")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", u.user.id)
      .executeTakeFirstOrThrow();
    expect(Number(pending.n)).toBe(after.body.total_posts);
  });
});
