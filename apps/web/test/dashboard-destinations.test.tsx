import type { DestinationHealth, SyncHealth } from "@keepsake/contracts";
import { syncMessages } from "@keepsake/contracts/sync-messages";
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { backupDoneText } from "../src/lib/backup-summary.ts";
import { isConnectFirst } from "../src/lib/fix-toast.tsx";
import { dash, renderDashboard, toastError, withDashboardApi } from "./support/dashboard.tsx";

// Issue 38 with issue 36: an account backed up to Dropbox. The dashboard names the storage the
// server's health state lists (never Google Drive, which this user never connected).
withDashboardApi();

const ok = { cause: null, fix: null, since: null };
const settings = "/settings?tab=connections";
const notConnected: DestinationHealth = {
  kind: "dropbox",
  label: null,
  state: "not_connected",
  cause:
    "Dropbox is not connected: backups of @lumen.studio go there and have nowhere to go until it is.",
  fix: { label: "Connect Dropbox", path: settings },
  since: null,
};
const revoked: DestinationHealth = {
  kind: "dropbox",
  label: "jordan@example.com",
  state: "needs_reconnection",
  cause: "Dropbox access was revoked or expired. Reconnect Dropbox in Settings to resume backups.",
  fix: { label: "Reconnect Dropbox", path: settings },
  since: "2026-11-27T09:00:00.000Z",
};
const full: DestinationHealth = {
  kind: "dropbox",
  label: "jordan@example.com",
  state: "full",
  cause: "Your Dropbox is full: new backups are refused until there is space.",
  fix: { label: "Free up Dropbox space", path: "https://www.dropbox.com/account/plan" },
  since: "2026-11-27T09:00:00.000Z",
};

function healthWith(d: DestinationHealth, over: Partial<SyncHealth> = {}): SyncHealth {
  return {
    state: d.state === "not_connected" ? "setup" : "broken",
    ready: false,
    headline:
      d.state === "not_connected"
        ? "Connect Dropbox to start"
        : d.state === "full"
          ? "Backups paused: Dropbox is full"
          : "Backups paused: reconnect Dropbox",
    cause: d.cause,
    fix: d.fix,
    since: d.since,
    next_step: null,
    accounts: [{ account_id: "a1", username: "lumen.studio", state: "ok", ...ok }],
    destinations: [d],
    plan: { state: "ok", ...ok },
    last_run: null,
    ...over,
  };
}

/** Instagram connected; Google Drive never was (its account goes to Dropbox). */
function withoutDrive(health: SyncHealth) {
  dash.oauth = { ...dash.oauth, google_connected: false, google_email: null };
  dash.health = health;
  dash.newPosts = {
    has_new_posts: true,
    new_posts_count: 12,
    unbacked_posts_count: 0,
    failed_backups_count: 0,
    upgrade_message: null,
  };
}

describe("the dashboard of an account backed up to Dropbox", () => {
  it("free, Dropbox not connected: step 2, the banner and the grid name Dropbox, never Drive", async () => {
    withoutDrive(
      healthWith(notConnected, {
        next_step: {
          step: "connect_storage",
          number: 2,
          destination: "dropbox",
          title: "Step 2 of 3: connect your Dropbox",
          text: "Backups of @lumen.studio are saved to the Apps/Keepsake folder of your own Dropbox.",
          fix: { label: "Connect Dropbox", path: settings },
        },
      }),
    );
    renderDashboard("free");
    const step = await screen.findByTestId("first-run");
    expect(step.textContent).toContain("Step 2 of 3: connect your Dropbox");
    expect(within(step).getByRole("link", { name: "Connect Dropbox" }).getAttribute("href")).toBe(
      settings,
    );
    const banner = await screen.findByRole("region", { name: "New posts" });
    expect(banner.textContent).toContain(
      "Backups are saved to your Dropbox, and your posts appear below as they are backed up.",
    );
    expect(within(banner).getByRole("link", { name: "Connect Dropbox" }).getAttribute("href")).toBe(
      settings,
    );
    const empty = await screen.findByTestId("awaiting-drive");
    expect(empty.textContent).toContain("Connect Dropbox to start the first backup.");
    expect(within(empty).getByRole("link", { name: "Connect Dropbox" })).toBeTruthy();
    expect(document.body.textContent).not.toContain("Google Drive");

    // Start Backup asks the server (which names Dropbox), not "connect your Google Drive".
    await userEvent.click(screen.getByRole("button", { name: "Start Backup" }));
    await waitFor(() =>
      expect(dash.calls.some((c) => c.method === "POST" && c.path === "/sync/start")).toBe(true),
    );
    expect(toastError.mock.calls.flat()).not.toContain(syncMessages.googleNotConnected);
  });

  it("premium, Dropbox not connected: automatic backup paused, Connect Dropbox", async () => {
    withoutDrive(healthWith(notConnected));
    renderDashboard("premium");
    await waitFor(() =>
      expect(screen.getByTestId("tier-state").textContent).toContain(
        "Connect Instagram and Dropbox to back up every 10 minutes.",
      ),
    );
    const card = screen.getByTestId("tier-state");
    expect(card.textContent).toContain("Automatic backup paused");
    expect(within(card).getByRole("link", { name: "Connect Dropbox" })).toBeTruthy();
    expect(within(card).queryByRole("link", { name: "Connect Google Drive" })).toBeNull();
  });

  it("premium, Dropbox connected and Drive never: automatic backup active, nothing to connect", async () => {
    withoutDrive({
      ...healthWith(full),
      state: "ready",
      ready: true,
      headline: "✓ Ready for backup",
      ...ok,
      destinations: [{ ...full, state: "ok", ...ok }],
    });
    renderDashboard("premium");
    await waitFor(() =>
      expect(screen.getByTestId("tier-state").textContent).toContain("Automatic Backup Active"),
    );
    expect(screen.queryByRole("link", { name: "Connect Google Drive" })).toBeNull();
    expect(screen.queryByTestId("awaiting-drive")).toBeNull();
    await waitFor(() =>
      expect(screen.getByTestId("health-badge").textContent).toBe("✓ Ready for backup"),
    );
  });

  it("Dropbox revoked: the badge, the card and the banner say Reconnect Dropbox", async () => {
    withoutDrive(healthWith(revoked));
    renderDashboard("free");
    await waitFor(() =>
      expect(screen.getByTestId("health-badge").textContent).toBe(
        "Backups paused: reconnect Dropbox",
      ),
    );
    const banner = await screen.findByRole("region", { name: "New posts" });
    expect(banner.textContent).toContain(
      "Keepsake's access to your Dropbox ended, so nothing can be backed up.",
    );
    expect(within(banner).getByRole("link", { name: "Reconnect Dropbox" })).toBeTruthy();
    const empty = await screen.findByTestId("awaiting-drive");
    expect(empty.textContent).toContain("Reconnect Dropbox to resume backups.");
    cleanup();
    renderDashboard("premium");
    await waitFor(() =>
      expect(
        within(screen.getByTestId("tier-state")).getByRole("link", { name: "Reconnect Dropbox" }),
      ).toBeTruthy(),
    );
    expect(screen.getByTestId("tier-state").textContent).toContain("Automatic backup paused");
    expect(document.body.textContent).not.toContain("Google Drive");
  });

  it("Dropbox full: the card names it and where to free space; automatic backup paused", async () => {
    dash.health = healthWith(full);
    renderDashboard("pro");
    const trouble = await screen.findByTestId("health-trouble");
    expect(trouble.textContent).toContain(
      "Your Dropbox is full: new backups are refused until there is space.",
    );
    expect(
      within(trouble).getByRole("link", { name: "Free up Dropbox space" }).getAttribute("href"),
    ).toBe("https://www.dropbox.com/account/plan");
    expect(screen.getByTestId("tier-state").textContent).toContain("Automatic backup paused");
  });
});

describe("the backup's summary names where the posts are", () => {
  const stats = {
    total_posts: 12,
    backed_up_posts: 12,
    pending_backups: 0,
    failed_backups: 0,
    posts_over_limit: 0,
    unavailable_posts: 0,
    post_limit: null,
    total_storage_used: 0,
    next_sync_in: null,
    last_sync: null,
    sync_progress: null,
  };
  it("Dropbox for an account backed up there, Google Drive as before, each named for several", () => {
    const job = { posts_processed: 12, posts_failed: 0 };
    const drive = {
      ...healthWith(full),
      destinations: [{ ...full, kind: "google_drive" as const }],
    };
    expect(backupDoneText(job, stats, "free", healthWith(full))).toContain(
      "12 posts are in your Dropbox.",
    );
    expect(backupDoneText(job, stats, "free", drive)).toContain(
      "12 posts are in your Google Drive.",
    );
    expect(backupDoneText(job, stats, "free", null)).toContain(
      "12 posts are in your Google Drive.",
    );
    const both = { ...drive, destinations: [...drive.destinations, full] };
    expect(backupDoneText(job, stats, "free", both)).toContain(
      "12 posts are in your Google Drive and Dropbox.",
    );
  });
});

describe("the server's connect-first words for other storage link to Settings", () => {
  it.each([
    "Connect Dropbox in Settings first: this account's backups go there.",
    "Connect your S3 storage in Settings first: this account's backups go there.",
    "OneDrive access was revoked or expired. Reconnect OneDrive in Settings to resume backups.",
    "The S3 storage no longer accepts Keepsake's access keys. Enter new keys in Settings to resume backups.",
  ])("%s", (message) => {
    expect(isConnectFirst(message)).toBe(true);
  });
  it("other failures do not", () => {
    expect(isConnectFirst("Failed to start sync")).toBe(false);
  });
});
