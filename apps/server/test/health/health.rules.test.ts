import { syncMessages } from "@keepsake/contracts";
import { describe, expect, it } from "vitest";
import { type HealthFacts, syncHealth } from "../../src/health/health.rules.ts";

// Issue 36: the states each cause leads to, with its words and fix (the rules alone).
const now = new Date("2026-11-27T09:00:00Z");
const DAY = 86_400_000;
const account = (over: Partial<HealthFacts["accounts"][number]> = {}) => ({
  id: "a1",
  username: "lumen.studio",
  status: "active",
  status_reason: null,
  paused_by_plan: false,
  connected_via: "instagram" as const,
  token_expires_at: new Date(now.getTime() + 50 * DAY),
  updated_at: now,
  ...over,
});
const facts = (over: Partial<HealthFacts> = {}): HealthFacts => ({
  now,
  accounts: [account()],
  drive: { google_email: "j@example.com", status: "active", status_reason: null, updated_at: now },
  failures: [],
  lastCompletedAt: null,
  latestRun: null,
  runningAccountIds: new Set(),
  firstBackupDone: true,
  expiringWindowMs: 7 * DAY,
  ...over,
});

describe("health rules", () => {
  it("everything works: ready", () => {
    expect(syncHealth(facts())).toMatchObject({ state: "ready", ready: true, next_step: null });
  });

  it("Drive full: broken, the cause and where to free space, since the first refusal", () => {
    const since = new Date(now.getTime() - 3600_000);
    const h = syncHealth(
      facts({
        failures: [
          { accountId: "a1", failed: 3, since, latestAt: since, latest: syncMessages.driveFull },
        ],
      }),
    );
    expect(h).toMatchObject({
      state: "broken",
      ready: false,
      headline: "Backups paused: Google Drive is full",
      since: since.toISOString(),
    });
    expect(h.destinations[0]).toMatchObject({
      state: "full",
      fix: { label: "Free up Drive space" },
    });
    // The account itself is fine: Drive explains the failures.
    expect(h.accounts[0]?.state).toBe("ok");
    // Drive took a backup after the refusal: there is room again.
    const later = syncHealth(
      facts({
        failures: [
          { accountId: "a1", failed: 1, since, latestAt: since, latest: syncMessages.driveFull },
        ],
        lastCompletedAt: now,
      }),
    );
    expect(later.destinations[0]?.state).toBe("ok");
  });

  it("backups failing for an account: attention, failing since, retry", () => {
    const since = new Date(now.getTime() - 2 * 3600_000);
    const h = syncHealth(
      facts({
        failures: [
          {
            accountId: "a1",
            failed: 2,
            since,
            latestAt: since,
            latest: "Instagram did not answer in time",
          },
        ],
      }),
    );
    expect(h).toMatchObject({ state: "attention", headline: "Some backups failed" });
    expect(h.accounts[0]).toMatchObject({
      state: "failing",
      cause: "2 backups of @lumen.studio failed: Instagram did not answer in time",
      fix: { label: "Retry failed backups", path: "/backups?filter=failed" },
      since: since.toISOString(),
    });
  });

  it("a Facebook Login token ending soon, an expired token, an account the plan paused", () => {
    const soon = syncHealth(
      facts({
        accounts: [
          account({
            connected_via: "facebook",
            token_expires_at: new Date(now.getTime() + 2 * DAY),
          }),
        ],
      }),
    );
    expect(soon.accounts[0]).toMatchObject({
      state: "token_expiring",
      fix: { label: "Reconnect @lumen.studio" },
    });
    expect(soon.ready).toBe(true);
    const expired = syncHealth(
      facts({ accounts: [account({ token_expires_at: new Date(now.getTime() - DAY) })] }),
    );
    expect(expired).toMatchObject({
      state: "broken",
      ready: false,
      headline: "Backups paused for @lumen.studio",
    });
    const paused = syncHealth(facts({ accounts: [account({ paused_by_plan: true })] }));
    expect(paused.accounts[0]?.state).toBe("paused_by_plan");
  });

  it("a run whose backups partly failed is 'finished with errors', not a success", () => {
    const h = syncHealth(
      facts({
        failures: [
          { accountId: "a1", failed: 1, since: now, latestAt: now, latest: "the CDN answered 403" },
        ],
        latestRun: {
          id: "r1",
          account_id: "a1",
          job_type: "manual",
          mode: "backup",
          status: "completed",
          posts_processed: 5,
          posts_total: 5,
          posts_failed: 1,
          error_message: null,
          started_at: now.toISOString(),
          completed_at: now.toISOString(),
        },
      }),
    );
    expect(h.last_run).toMatchObject({
      outcome: "partial",
      title: "Last sync finished with errors",
      text: "4 posts backed up, 1 backup failed: 1 backup of @lumen.studio failed: the CDN answered 403",
      fix: { label: "Retry failed backups" },
    });
  });

  it("a provider's limit: throttled until a backup completes after it; a failing account or a full Drive comes first", () => {
    const HOUR = 3600_000;
    const marked = new Date(now.getTime() - HOUR);
    const waiting = (message: string) => ({
      accountId: "a1",
      message,
      waiting: 2,
      since: new Date(now.getTime() - 2 * HOUR),
      latestAt: marked,
    });
    const drive = waiting("Retrying: Google Drive is limiting requests right now");
    const h = syncHealth(facts({ throttled: [drive] }));
    expect(h.destinations[0]).toMatchObject({
      state: "throttled",
      since: new Date(now.getTime() - 2 * HOUR).toISOString(),
    });
    expect(h).toMatchObject({ state: "attention", ready: true });
    // A backup completed after it: the limit let go.
    const later = syncHealth(facts({ throttled: [drive], lastCompletedAt: now }));
    expect(later.destinations[0]?.state).toBe("ok");
    expect(later.state).toBe("ready");
    // Drive full explains more than its limit does.
    const full = syncHealth(
      facts({
        throttled: [drive],
        failures: [
          { accountId: "a1", failed: 1, since: now, latestAt: now, latest: syncMessages.driveFull },
        ],
      }),
    );
    expect(full.destinations[0]?.state).toBe("full");

    const ig = waiting("Waiting: Instagram is limiting requests right now");
    expect(syncHealth(facts({ throttled: [ig] })).accounts[0]?.state).toBe("throttled");
    const failing = syncHealth(
      facts({
        throttled: [ig],
        failures: [{ accountId: "a1", failed: 1, since: now, latestAt: now, latest: "HTTP 403" }],
      }),
    );
    expect(failing.accounts[0]?.state).toBe("failing");
    // Other words are no limit.
    const other = syncHealth(facts({ throttled: [waiting("Retrying: Instagram: HTTP 500")] }));
    expect(other.accounts[0]?.state).toBe("ok");
  });

  it("stale while no sync runs; lost stories and a stale account come before a failed payment", () => {
    const stale = { id: "a1", last_sync_at: new Date(now.getTime() - 2 * DAY), connected_at: now };
    const payment = { tier: "pro", since: now, periodEnd: new Date(now.getTime() + 3 * DAY) };
    const h = syncHealth(facts({ stale: [stale], payment }));
    expect(h.accounts[0]?.state).toBe("stale");
    expect(h.plan.state).toBe("payment_failed");
    expect(h.headline).toBe("@lumen.studio hasn't been backed up for a day");
    const running = syncHealth(facts({ stale: [stale], runningAccountIds: new Set(["a1"]) }));
    expect(running.accounts[0]?.state).toBe("syncing");
    const paying = syncHealth(facts({ payment }));
    expect(paying).toMatchObject({
      state: "attention",
      ready: true,
      headline: "Payment failed: update your payment method",
      cause:
        "We couldn't charge your card for your pro plan. Your plan keeps running until November 30, 2026 while Stripe tries again over the next days.",
      fix: { label: "Update payment method", path: "/settings?tab=subscription" },
    });
    const lost = syncHealth(
      facts({ lostStories: [{ accountId: "a1", lost: 1, since: now, latestAt: now }], payment }),
    );
    expect(lost.accounts[0]).toMatchObject({
      state: "stories_lost",
      cause:
        "A story of @lumen.studio expired before Keepsake could save it: Instagram removes stories after 24 hours, so it can no longer be saved.",
    });
    expect(lost.headline).toBe("Stories expired before they could be saved");
  });
});
