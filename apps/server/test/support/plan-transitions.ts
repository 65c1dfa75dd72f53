import { DEMO_GOOGLE, SANDBOX_PRICES } from "@keepsake/sandbox";
import { expect } from "vitest";
import { accountLimit, postLimit } from "../../src/billing/tier-rules.ts";
import { backupHelpers } from "./backup.ts";
import { billingHelpers, type SandboxEvent } from "./billing.ts";
import type { SandboxedApp } from "./sandbox.ts";

export type Tier = "free" | "premium" | "pro" | "agency";
export type ConnectionState = "active" | "paused" | "revoked";

/**
 * Users with several Instagram accounts walked through plan changes at Stripe, and what the
 * plan must leave in force after each (billing-transitions and billing-concurrency tests).
 */
export function planTransitions(t: SandboxedApp) {
  const b = billingHelpers(t);
  const h = backupHelpers(t);
  /** The first account has more posts than Free backs up; the others a few each. */
  const FIRST_POSTS = 130;
  const OTHER_POSTS = 6;

  /**
   * The account rule: the first `limit` accounts stay active (one the user chose to keep first,
   * then those already active, oldest first); the others are paused, none is removed.
   */
  function expectPaused(s: Subject, limit: number, keep?: string) {
    const rank = (id: string) => [
      id === keep ? 0 : 1,
      s.paused.get(id) ? 1 : 0,
      s.accounts.indexOf(id),
    ];
    const ranked = [...s.accounts].sort((a, c) => {
      const [x, y] = [rank(a), rank(c)];
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
      return 0;
    });
    ranked.forEach((id, i) => {
      s.paused.set(id, i >= limit);
    });
  }

  const control = async (path: string, body: unknown) => {
    const res = await fetch(`${t.sandbox.url}/_control${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`control ${path}: ${res.status}`);
    return res.json() as Promise<Record<string, unknown>>;
  };

  async function liveSubscription(s: Subject) {
    const subs = await b.stripe.subscriptions.list({ customer: s.customerId });
    expect(subs.data.length).toBeLessThanOrEqual(1);
    return subs.data[0];
  }

  const count = async (table: "posts" | "backups" | "instagram_accounts", userId: string) =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("user_id", "=", userId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** The webhook events of one step, each delivered once, in order. */
  async function deliverStep(): Promise<SandboxEvent[]> {
    const events = await b.newEvents();
    await b.deliverAll(events);
    return events;
  }

  /** One plan transition, made the way a user makes it (Checkout, portal switch, cancel). */
  async function toPlan(s: Subject, tier: Tier) {
    const live = await liveSubscription(s);
    if (tier === "free") {
      await b.stripe.subscriptions.cancel(live!.id);
    } else if (!live) {
      const price = SANDBOX_PRICES[tier].monthly;
      const paid = await b.checkout(s.token, price);
      expect(paid.location).toContain("/billing/return");
    } else {
      await b.stripe.subscriptions.update(live.id, {
        items: [{ id: live.items.data[0]!.id, price: SANDBOX_PRICES[tier].monthly }],
      });
    }
  }

  async function pastDue(s: Subject) {
    const live = (await liveSubscription(s))!;
    await control("/stripe/payment_failed", { subscription: live.id });
  }

  /** Everything the plan decides, checked against what the server and Stripe hold. */
  async function expectPlan(s: Subject, tier: Tier, status: string) {
    const current = await t.call("GET", "/api/subscriptions/current", { token: s.token });
    expect(current.body).toMatchObject({ tier, status });
    const live = await liveSubscription(s);
    expect(live?.status ?? "free").toBe(tier === "free" ? "free" : status);
    // Nothing is ever deleted by a plan change.
    expect(await count("instagram_accounts", s.userId)).toBe(s.accounts.length);
    expect(await count("posts", s.userId)).toBe(s.posts);
    expect(await count("backups", s.userId)).toBe(s.backups);
    // Accounts: the plan's limit, the same accounts paused as the rule says.
    expectPaused(s, accountLimit(tier));
    const list = await t.call("GET", "/api/accounts/instagram-accounts", { token: s.token });
    expect(list.body.limit).toBe(accountLimit(tier));
    const paused = Object.fromEntries(
      list.body.accounts.map((a: { id: string; paused_by_plan: boolean }) => [
        a.id,
        a.paused_by_plan,
      ]),
    );
    expect(paused).toEqual(Object.fromEntries(s.paused));
    const rows = await t.ctx.db
      .selectFrom("instagram_accounts")
      .select(["id", "status"])
      .where("user_id", "=", s.userId)
      .execute();
    for (const r of rows)
      expect(r.status).toBe(r.id === s.revoked ? "needs_reconnection" : "active");
    // Posts: the plan's post limit, applied at once.
    const limit = postLimit(tier);
    const stats = await t.call("GET", "/api/sync/dashboard/stats", { token: s.token });
    expect(stats.body.post_limit).toBe(limit);
    const beyond = limit === null ? [] : s.unbacked.slice(limit);
    expect(stats.body.posts_over_limit).toBe(beyond.filter(Boolean).length);
    const marked = await t.ctx.db
      .selectFrom("posts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", s.userId)
      .where("not_backed_up_reason", "is not", null)
      .executeTakeFirstOrThrow();
    expect(Number(marked.n)).toBe(beyond.length);
  }

  /** A user on Agency with `n` accounts and their posts listed, some already backed up. */
  async function subject(n: number, state: ConnectionState): Promise<Subject> {
    const u = await t.signUp();
    await t.connectDrive(u.token, DEMO_GOOGLE.jordan.sub);
    await b.newEvents();
    await b.checkout(u.token, SANDBOX_PRICES.agency.monthly);
    await deliverStep();
    const seeded = (await control("/instagram/accounts", { count: 1, posts: FIRST_POSTS })) as {
      accounts: { id: string; user_id: string }[];
    };
    const others =
      n > 1
        ? ((await control("/instagram/accounts", { count: n - 1, posts: OTHER_POSTS })) as {
            accounts: { id: string; user_id: string }[];
          })
        : { accounts: [] };
    const accounts: string[] = [];
    for (const ig of [...seeded.accounts, ...others.accounts]) {
      t.clock.advance(1000);
      const landed = await t.connectInstagram(u.token, ig.id);
      expect(landed.searchParams.get("instagram_connected")).toBe("true");
      const row = await t.ctx.db
        .selectFrom("instagram_accounts")
        .select("id")
        .where("instagram_user_id", "=", ig.user_id)
        .executeTakeFirstOrThrow();
      accounts.push(row.id);
    }
    // The syncs that connecting started are run here, listing only.
    await t.ctx.pool.query(`DELETE FROM ${t.ctx.queueSchema}.job WHERE name = 'sync-account'`);
    await t.rows.sync.deleteSyncJobsOfUser(u.user.id);
    for (const accountId of accounts) await h.listPosts({ user: { id: u.user.id }, accountId });
    // Every third post is backed up already.
    const posts = await t.ctx.db
      .selectFrom("posts")
      .select(["instagram_id"])
      .where("user_id", "=", u.user.id)
      .orderBy("posted_at", "desc")
      .orderBy("id")
      .execute();
    await h.leaveOnlyToBackUp(
      u.user.id,
      new Set(posts.filter((_, i) => i % 3 !== 0).map((p) => p.instagram_id)),
    );
    const customerId = (await b.stripe.customers.list({ email: u.user.email })).data[0]!.id;
    const s: Subject = {
      token: u.token,
      userId: u.user.id,
      customerId,
      accounts,
      paused: new Map(accounts.map((id) => [id, false])),
      revoked: null,
      posts: posts.length,
      backups: await count("backups", u.user.id),
      unbacked: posts.map((_, i) => i % 3 !== 0),
    };
    if (state === "revoked") {
      s.revoked = accounts[0]!;
      await t.ctx.connections.health.markInstagramNeedsReconnection(
        s.revoked,
        "Reconnect your Instagram account.",
      );
    }
    await expectPlan(s, "agency", "active");
    if (state === "paused") {
      // Down to Premium, then the user keeps the newest account: the oldest is paused.
      await toPlan(s, "premium");
      await deliverStep();
      await expectPlan(s, "premium", "active");
      const newest = accounts[accounts.length - 1]!;
      const keep = await t.call("PUT", `/api/accounts/instagram-accounts/${newest}/keep`, {
        token: s.token,
      });
      expect(keep.status).toBe(200);
      expectPaused(s, 1, newest);
      await expectPlan(s, "premium", "active");
    }
    return s;
  }

  return { b, control, subject, toPlan, pastDue, expectPlan, deliverStep, liveSubscription };
}

/** A user under test, and what the plan rules say about its accounts (the test's model). */
export interface Subject {
  token: string;
  userId: string;
  customerId: string;
  /** Account ids, oldest connection first. */
  accounts: string[];
  /** What the plan's account rule says about each account now (the test's model). */
  paused: Map<string, boolean>;
  revoked: string | null;
  posts: number;
  backups: number;
  /** Per post, newest first: whether it is not backed up. */
  unbacked: boolean[];
}
