import { describe, expect, it } from "vitest";
import { type HealthFacts, syncHealth } from "../../src/health/health.rules.ts";
import {
  destinationRefusedWords,
  fullWords,
  limitingWords,
} from "../../src/providers/failure-words.ts";
import { ProviderError } from "../../src/providers/provider-error.ts";

// Issue 38 with issue 36: one destination health per destination the accounts use, each from
// its own connection, worded with its name and fix (the rules alone).
const now = new Date("2026-11-27T09:00:00Z");
const DAY = 86_400_000;
const hourAgo = new Date(now.getTime() - 3600_000);
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
const dropbox = (over: Partial<NonNullable<HealthFacts["storage"]>[number]> = {}) => ({
  kind: "dropbox" as const,
  label: "jordan@example.com",
  status: "active",
  status_reason: null,
  updated_at: hourAgo,
  ...over,
});
const facts = (over: Partial<HealthFacts> = {}): HealthFacts => ({
  now,
  accounts: [account(), account({ id: "a2", username: "client.two", destination: "dropbox" })],
  drive: { google_email: "j@example.com", status: "active", status_reason: null, updated_at: now },
  storage: [dropbox()],
  failures: [],
  lastCompletedAt: null,
  latestRun: null,
  runningAccountIds: new Set(),
  firstBackupDone: true,
  expiringWindowMs: 7 * DAY,
  ...over,
});

describe("health per destination", () => {
  it("each destination the accounts use, in order, from its own connection", () => {
    const h = syncHealth(facts());
    expect(h).toMatchObject({ state: "ready", ready: true, headline: "✓ Ready for backup" });
    expect(h.destinations.map((d) => [d.kind, d.state, d.label])).toEqual([
      ["google_drive", "ok", "j@example.com"],
      ["dropbox", "ok", "jordan@example.com"],
    ]);
    // An account that only uses Dropbox: Drive is not listed, connected or not.
    const only = syncHealth(
      facts({ accounts: [account({ destination: "dropbox" })], drive: undefined }),
    );
    expect(only.destinations.map((d) => d.kind)).toEqual(["dropbox"]);
    expect(only.ready).toBe(true);
  });

  it("one destination revoked while another works: never ready, its reconnect named", () => {
    const h = syncHealth(
      facts({
        storage: [dropbox({ status: "needs_reconnection", status_reason: null })],
      }),
    );
    expect(h).toMatchObject({
      state: "attention",
      ready: false,
      headline: "Backups paused: reconnect Dropbox",
      cause: "Dropbox access was revoked or expired.",
      fix: { label: "Reconnect Dropbox", path: "/settings?tab=connections" },
      since: hourAgo.toISOString(),
    });
    expect(h.destinations[0]?.state).toBe("ok");
  });

  it("Dropbox full (insufficient_space): the Dropbox named, where to free space", () => {
    const h = syncHealth(
      facts({
        accounts: [account({ destination: "dropbox" })],
        failures: [
          {
            accountId: "a1",
            failed: 2,
            since: hourAgo,
            latestAt: hourAgo,
            latest: fullWords.dropbox,
          },
        ],
      }),
    );
    expect(h).toMatchObject({
      state: "broken",
      ready: false,
      headline: "Backups paused: Dropbox is full",
      cause: "Your Dropbox is full: new backups are refused until there is space.",
      fix: { label: "Free up Dropbox space", path: "https://www.dropbox.com/account/plan" },
    });
    // The destination explains the failures: the account itself is fine.
    expect(h.accounts[0]?.state).toBe("ok");
    expect(JSON.stringify(h)).not.toMatch(/Google Drive|Drive space/);
  });

  it("a full Dropbox is over when Dropbox takes a backup, not when Drive does", () => {
    const failures = [
      { accountId: "a2", failed: 1, since: hourAgo, latestAt: hourAgo, latest: fullWords.dropbox },
    ];
    const driveTook = syncHealth(
      facts({ failures, lastCompletedAt: now, lastCompletedBy: { google_drive: now } }),
    );
    expect(driveTook.destinations.map((d) => d.state)).toEqual(["ok", "full"]);
    // Drive still takes @lumen.studio's backups: attention, never ready.
    expect(driveTook).toMatchObject({
      state: "attention",
      ready: false,
      headline: "Backups paused: Dropbox is full",
    });
    const dropboxTook = syncHealth(
      facts({
        failures,
        lastCompletedAt: now,
        lastCompletedBy: { google_drive: hourAgo, dropbox: now },
      }),
    );
    expect(dropboxTook.destinations.map((d) => d.state)).toEqual(["ok", "ok"]);
  });

  it("OneDrive full (507) and S3 over its quota: each named with its own fix", () => {
    const onedrive = syncHealth(
      facts({
        accounts: [account({ destination: "onedrive" })],
        storage: [dropbox({ kind: "onedrive" as "dropbox", label: "c@example.com" })],
        failures: [
          {
            accountId: "a1",
            failed: 1,
            since: hourAgo,
            latestAt: hourAgo,
            latest: fullWords.onedrive,
          },
        ],
      }),
    );
    expect(onedrive.headline).toBe("Backups paused: OneDrive is full");
    expect(onedrive.fix).toMatchObject({ label: "Free up OneDrive space" });
    const s3 = syncHealth(
      facts({
        accounts: [account({ destination: "s3" })],
        storage: [dropbox({ kind: "s3" as "dropbox", label: "keep at s3.example.com" })],
        failures: [
          { accountId: "a1", failed: 1, since: hourAgo, latestAt: hourAgo, latest: fullWords.s3 },
        ],
      }),
    );
    expect(s3.headline).toBe("Backups paused: S3 storage is full");
    expect(s3.cause).toMatch(/S3 storage is full \(the bucket's quota is reached\)/);
    expect(s3.fix).toMatchObject({ label: "Check your S3 storage" });
  });

  it("writes a destination refused: fixed in Settings, not by a retry", () => {
    const failingWith = (accountId: string, latest: string) =>
      syncHealth(
        facts({ failures: [{ accountId, failed: 1, since: hourAgo, latestAt: hourAgo, latest }] }),
      );
    const refused = (provider: "google" | "dropbox" | "s3", code?: string) =>
      destinationRefusedWords(
        new ProviderError(provider, "permission", "refused", code ? { code } : {}),
      );
    const settings = "/settings?tab=connections";
    const drive = failingWith("a1", refused("google"));
    expect(drive.destinations[0]).toMatchObject({ kind: "google_drive", state: "failing" });
    expect(drive.fix).toEqual({ label: "Reconnect Google Drive", path: settings });
    const dropbox = failingWith("a2", refused("dropbox"));
    expect(dropbox.destinations[1]).toMatchObject({ kind: "dropbox", state: "failing" });
    expect(dropbox.fix).toEqual({ label: "Reconnect Dropbox", path: settings });
    // A failure in the same words that is not a refusal is still retried.
    const retried = failingWith("a2", "Backup failed after 4 attempts: Dropbox: conflict");
    expect(retried.fix).toEqual({ label: "Retry failed backups", path: "/backups?filter=failed" });
  });

  it("backups failing in Dropbox's own words: the destination is failing, not the account", () => {
    const latest = "Backup failed after 4 attempts: Dropbox: internal_error (HTTP 500)";
    const h = syncHealth(
      facts({
        failures: [{ accountId: "a2", failed: 2, since: hourAgo, latestAt: hourAgo, latest }],
      }),
    );
    expect(h).toMatchObject({
      state: "attention",
      ready: true,
      headline: "Some backups failed",
      cause: `2 backups to Dropbox failed: ${latest}`,
      fix: { label: "Retry failed backups", path: "/backups?filter=failed" },
      since: hourAgo.toISOString(),
    });
    expect(h.destinations.map((d) => d.state)).toEqual(["ok", "failing"]);
    expect(h.accounts.map((a) => a.state)).toEqual(["ok", "ok"]);
    // Other words (Instagram's CDN) are the account's own failures.
    const other = syncHealth(
      facts({
        failures: [
          {
            accountId: "a2",
            failed: 1,
            since: hourAgo,
            latestAt: hourAgo,
            latest: "the CDN answered 403",
          },
        ],
      }),
    );
    expect(other.destinations.map((d) => d.state)).toEqual(["ok", "ok"]);
    expect(other.accounts[1]?.state).toBe("failing");
  });

  it("OneDrive limiting requests: slowed, named, nothing to do", () => {
    const h = syncHealth(
      facts({
        accounts: [account({ destination: "onedrive" })],
        storage: [dropbox({ kind: "onedrive" as "dropbox" })],
        throttled: [
          {
            accountId: "a1",
            message: `Waiting: ${limitingWords("OneDrive")}`,
            waiting: 3,
            since: hourAgo,
            latestAt: hourAgo,
          },
        ],
      }),
    );
    expect(h).toMatchObject({
      state: "attention",
      ready: true,
      headline: "Backups slowed: OneDrive is limiting requests",
      fix: { label: "See waiting backups" },
    });
    expect(h.destinations[0]).toMatchObject({ kind: "onedrive", state: "throttled" });
    expect(h.destinations[0]?.cause).toMatch(
      /^OneDrive is limiting how fast Keepsake can write: 3 backups wait/,
    );
  });

  it("first-run path: the storage the accounts use, never Drive when no account uses it", () => {
    const step = (over: Partial<HealthFacts>) => syncHealth(facts(over)).next_step;
    // S3 chosen for the only account, not connected: step 2 names S3, with its fix.
    expect(
      step({ accounts: [account({ destination: "s3" })], drive: undefined, storage: [] }),
    ).toMatchObject({
      step: "connect_storage",
      number: 2,
      destination: "s3",
      title: "Step 2 of 3: connect your S3 storage",
      text: "Backups of @lumen.studio are saved to your own S3-compatible bucket.",
      fix: { label: "Connect S3 storage", path: "/settings?tab=connections" },
    });
    // Dropbox connected, Drive never: the first backup, into Dropbox.
    expect(
      step({
        accounts: [account({ destination: "dropbox" })],
        drive: undefined,
        firstBackupDone: false,
      }),
    ).toMatchObject({
      step: "first_backup",
      destination: "dropbox",
      text: "Both connections are ready. Start your first backup to copy your posts into Dropbox.",
    });
    // Drive used and connected, Dropbox used and not: step 2 is Dropbox; not ready meanwhile.
    const h = syncHealth(facts({ storage: [] }));
    expect(h.next_step).toMatchObject({ step: "connect_storage", destination: "dropbox" });
    expect(h).toMatchObject({
      state: "attention",
      ready: false,
      headline: "Connect Dropbox to back up its accounts",
    });
    expect(h.cause).toContain("@client.two");
  });

  it("an account the plan paused does not make its destination one in use", () => {
    const h = syncHealth(
      facts({
        accounts: [account(), account({ id: "a2", destination: "dropbox", paused_by_plan: true })],
        storage: [],
      }),
    );
    expect(h.destinations.map((d) => d.kind)).toEqual(["google_drive"]);
    expect(h.ready).toBe(true);
  });
});
