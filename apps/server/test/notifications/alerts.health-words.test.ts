import {
  type AccountHealthState,
  type DestinationHealthState,
  type HealthFix,
  type SyncHealth,
  syncMessages,
} from "@keepsake/contracts";
import { DEMO_GOOGLE, SANDBOX_PRICES, type SandboxMail } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { deliverMailJob, mailSweepJob } from "../../src/mail/mail.jobs.ts";
import { alertsCheckJob } from "../../src/notifications/alerts.jobs.ts";
import { syncAccountJob } from "../../src/sync/jobs/sync-account.job.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { billingHelpers, stripeEnv } from "../support/billing.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

// Issue 36/37: the bell and the alert e-mails word each cause as the health state does (one
// source of copy): for every cause the health state can name, the alert it raises carries the
// state's cause and its fix, read back from GET /api/sync/health.
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
const HOUR = 3600_000;

beforeAll(async () => {
  t = await createSandboxedApp(
    // Billing through the sandbox's Stripe: a payment that fails for real (the plan's state).
    stripeEnv,
    {
      // The queues exist (connecting queues a first sync, signing up an account mail); no
      // worker runs them: each test makes its own state.
      jobs: [deliverMailJob, mailSweepJob, syncAccountJob, accountMailJob],
      engineSettings: FAST_ENGINE,
    },
  );
  h = backupHelpers(t);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

type User = Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;

/** A verified user with an Instagram account of its own (posts read, none backed up) and Drive. */
async function newUser(google: string): Promise<User> {
  const { accounts } = await h.control<{ accounts: { id: string }[] }>("/instagram/accounts", {
    body: { count: 1, posts: 3 },
  });
  const u = await h.connectedUser({ instagram: accounts[0]!.id, google });
  await t.rows.auth.updateUser(u.user.id, { email_verified_at: new Date() });
  return u;
}

const health = async (u: User): Promise<SyncHealth> => {
  const res = await t.call("GET", "/api/sync/health", { token: u.token });
  expect(res.status).toBe(200);
  return res.body;
};

const runCheck = () => alertsCheckJob.handler({}, t.ctx, { id: "test", retryCount: 0 });

const failBackups = async (u: User, message: string, reason: string) => {
  await h.syncAndDrain(u.user.id, u.accountId, "refresh");
  const posts = await t.ctx.db
    .selectFrom("posts")
    .select("id")
    .where("account_id", "=", u.accountId)
    .orderBy("id")
    .limit(2)
    .execute();
  expect(posts).toHaveLength(2);
  for (const p of posts) {
    await t.rows.backups.upsertBackup({
      post_id: p.id,
      user_id: u.user.id,
      account_id: u.accountId,
      status: "failed",
      error_message: message,
    });
    await t.ctx.alerts.backupFailed({ accountId: u.accountId, postId: p.id, reason, message });
  }
};

interface Case {
  /** Brings the user's account or Drive into the state. */
  cause(u: User): Promise<void>;
  /** The alert it raises: its category (and its title, where the category has several). */
  category: string;
  title?: RegExp;
  google?: string;
}

/** Every cause an account's health state names (each one an alert). */
const accountCases = {
  needs_reconnection: {
    category: "alert_connection",
    cause: async (u) => {
      await t.ctx.connections.health.markInstagramNeedsReconnection(
        u.accountId,
        "Instagram ended Keepsake's access: the account's password was changed. Reconnect the account.",
      );
    },
  },
  token_expiring: {
    category: "alert_connection",
    cause: async (u) => {
      await t.rows.connections.updateInstagramAccount(u.accountId, {
        connected_via: "facebook",
        token_issued_at: new Date(t.clock.now().getTime() - 55 * 24 * HOUR),
        token_expires_at: new Date(t.clock.now().getTime() + 3 * 24 * HOUR),
      });
      await runCheck();
    },
  },
  failing: {
    category: "alert_backup_failures",
    cause: async (u) => {
      await failBackups(
        u,
        "Backup failed after 4 attempts: the CDN answered 403",
        "retries_exhausted",
      );
      await runCheck();
    },
  },
  paused_by_plan: {
    category: "alert_billing",
    title: /paused on your free plan/,
    cause: async (u) => {
      await t.rows.connections.updateInstagramAccount(u.accountId, { paused_by_plan: true });
      await t.ctx.alerts.billingEvent({
        userId: u.user.id,
        eventId: `evt_paused_${u.user.id}`,
        type: "customer.subscription.deleted",
        before: "pro",
        after: "free",
        periodEnd: null,
      });
    },
  },
  stale: {
    category: "alert_sync_stale",
    cause: async (u) => {
      await t.setTier(u.user.id, "pro");
      await t.rows.sync.upsertSyncState({
        account_id: u.accountId,
        last_sync_at: new Date(t.clock.now().getTime() - 30 * HOUR),
      });
      await runCheck();
    },
  },
  stories_lost: {
    category: "alert_stories",
    cause: async (u) => {
      await h.syncAndDrain(u.user.id, u.accountId, "refresh");
      const posts = await t.ctx.db
        .selectFrom("posts")
        .select("id")
        .where("account_id", "=", u.accountId)
        .orderBy("id")
        .limit(2)
        .execute();
      expect(posts).toHaveLength(2);
      // Two stories still waiting for their backup when their 24 hours ended.
      for (const p of posts) {
        await t.rows.sync.updatePost(p.id, {
          media_product_type: "STORY",
          posted_at: new Date(t.clock.now().getTime() - 25 * HOUR),
        });
        await t.rows.backups.upsertBackup({
          post_id: p.id,
          user_id: u.user.id,
          account_id: u.accountId,
          status: "pending",
          error_message: null,
        });
      }
      await runCheck();
    },
  },
  // "throttled" raises no alert: nothing to do, it clears by itself (health.throttled.test.ts).
} satisfies Record<Exclude<AccountHealthState, "ok" | "syncing" | "throttled">, Case>;

/** Every cause Drive's health state names; "not connected" is the first-run path's step. */
const destinationCases = {
  needs_reconnection: {
    category: "alert_connection",
    google: DEMO_GOOGLE.jordan.sub,
    cause: async (u) => {
      await h.control("/tokens/revoke", { body: { google_email: DEMO_GOOGLE.jordan.email } });
      await t.ctx.connections.health.refreshConnections(u.user.id);
    },
  },
  full: {
    category: "alert_drive_full",
    google: DEMO_GOOGLE.sam.sub,
    cause: (u) => failBackups(u, syncMessages.driveFull, "drive_full"),
  },
  // Backups failing in Drive's own words: the account's daily summary names Drive's state too.
  failing: {
    category: "alert_backup_failures",
    cause: async (u) => {
      await failBackups(
        u,
        "Backup failed after 4 attempts: Google Drive: Internal Error (HTTP 500)",
        "retries_exhausted",
      );
      await runCheck();
    },
  },
  // "throttled" raises no alert (health.throttled.test.ts).
} satisfies Record<Exclude<DestinationHealthState, "ok" | "not_connected" | "throttled">, Case>;

/**
 * Delivers the user's queued messages as the mail worker would (no worker runs here: the first
 * syncs that connecting queued must not run beside the test), then reads the sandbox's inbox.
 */
async function delivered(u: User): Promise<SandboxMail[]> {
  const queued = await t.ctx.db
    .selectFrom("mail_outbox")
    .select("id")
    .where("user_id", "=", u.user.id)
    .where("status", "=", "queued")
    .execute();
  for (const m of queued) await t.ctx.mail.deliver(m.id);
  const res = await fetch(`${t.sandbox.url}/_control/mail?to=${encodeURIComponent(u.user.email)}`);
  return (await res.json()) as SandboxMail[];
}

const flat = (s: string) => s.replace(/\s+/g, " ");

/** The bell's entry and the e-mail of the alert both carry the state's cause and fix. */
async function expectWorded(
  u: User,
  c: Case,
  state: { cause: string | null; fix: HealthFix | null },
) {
  expect(state.cause).toBeTruthy();
  expect(state.fix).toBeTruthy();
  const cause = state.cause as string;
  const fix = state.fix as HealthFix;
  const bell = await t.call("GET", "/api/notifications", { token: u.token });
  const entries = bell.body.notifications.filter(
    (n: { category: string; title: string }) =>
      n.category === c.category && (!c.title || c.title.test(n.title)),
  );
  expect(entries).toHaveLength(1);
  const entry = entries[0];
  expect(entry.body).toContain(cause);
  expect(`${entry.title} ${entry.body} ${entry.action_label}`).toContain(fix.label);
  expect(entry.action_path).toBe(fix.path);

  const mails = (await delivered(u)).filter((m) => m.subject === entry.title);
  expect(mails).toHaveLength(1);
  const text = flat(mails[0]!.text);
  expect(text).toContain(flat(cause));
  expect(text).toContain(fix.label);
  expect(text).toContain(
    /^https?:\/\//.test(fix.path) ? fix.path : `${t.ctx.config.appUrl}${fix.path}`,
  );
}

describe("alerts word each cause as the health state does", () => {
  for (const [state, c] of Object.entries(accountCases) as [string, Case][]) {
    it(`an account ${state}: the bell and the e-mail carry its cause and fix`, async () => {
      const u = await newUser(c.google ?? DEMO_GOOGLE.maya.sub);
      await c.cause(u);
      const account = (await health(u)).accounts.find((a) => a.account_id === u.accountId);
      expect(account?.state).toBe(state);
      await expectWorded(u, c, account!);
    }, 60_000);
  }

  for (const [state, c] of Object.entries(destinationCases) as [string, Case][]) {
    it(`Google Drive ${state}: the bell and the e-mail carry its cause and fix`, async () => {
      const u = await newUser(c.google ?? DEMO_GOOGLE.maya.sub);
      await c.cause(u);
      const drive = (await health(u)).destinations[0];
      expect(drive?.state).toBe(state);
      await expectWorded(u, c, drive!);
    }, 60_000);
  }

  it("a payment Stripe could not take: the plan's state, the bell and the e-mail carry its cause and fix", async () => {
    const b = billingHelpers(t);
    const u = await newUser(DEMO_GOOGLE.jordan.sub);
    await b.newEvents();
    await b.checkout(u.token, SANDBOX_PRICES.pro.monthly);
    await b.deliverAll(await b.newEvents());
    expect((await health(u)).plan).toEqual({
      state: "ok",
      cause: null,
      fix: null,
      since: null,
    });
    const customer = (await b.stripe.customers.list({ email: u.user.email })).data[0]!;
    const sub = (await b.subscriptionOf(customer.id))!;
    await h.control("/stripe/payment_failed", { body: { subscription: sub.id } });
    await b.deliverAll(await b.newEvents());
    const s = await health(u);
    expect(s.plan.state).toBe("payment_failed");
    expect(s.plan.cause).toMatch(
      /^We couldn't charge your card for your pro plan\. Your plan keeps running until /,
    );
    expect(s).toMatchObject({ state: "attention", ready: true, fix: s.plan.fix });
    await expectWorded(
      u,
      { category: "alert_billing", title: /payment failed/, cause: async () => {} },
      s.plan,
    );
  }, 60_000);

  it("Google Drive not connected is the first-run path's step, not an alert", async () => {
    const { accounts } = await h.control<{ accounts: { id: string }[] }>("/instagram/accounts", {
      body: { count: 1, posts: 1 },
    });
    const u = await t.signUp();
    await t.connectInstagram(u.token, accounts[0]!.id);
    await runCheck();
    const res = await t.call("GET", "/api/sync/health", { token: u.token });
    expect(res.body.destinations[0]).toMatchObject({ state: "not_connected" });
    expect(res.body.next_step).toMatchObject({ step: "connect_drive" });
    const bell = await t.call("GET", "/api/notifications", { token: u.token });
    expect(bell.body.notifications).toEqual([]);
  });
});
