import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { makeAccount, makeJob } from "./fake-api.ts";
import {
  dash,
  postRequests,
  renderDashboard,
  stats,
  withDashboardApi,
} from "./support/dashboard.tsx";

withDashboardApi();

describe("dashboard header, stats and banner", () => {
  it("shows a free user's manual mode, the formatted stats and refreshes the profile", async () => {
    const auth = renderDashboard("free");
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Jane Doe");
    expect(screen.getByText("jane@example.com")).toBeTruthy();
    expect(screen.getByText("Manual backup mode")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Start Backup" })).toBeTruthy();
    expect(screen.queryByText("Automatic Backup Active")).toBeNull();
    expect(auth.refreshUser).toHaveBeenCalledTimes(1);

    const statsRegion = screen.getByRole("region", { name: "Backup statistics" });
    await waitFor(() => expect(within(statsRegion).getByText("1,234")).toBeTruthy());
    expect(within(statsRegion).getByText("Total Posts")).toBeTruthy();
    expect(within(statsRegion).getByText("1,200")).toBeTruthy();
    expect(within(statsRegion).getByText("0")).toBeTruthy();
    expect(within(statsRegion).getByText("2.5 MB")).toBeTruthy();
    expect(within(statsRegion).getByText("Storage Used")).toBeTruthy();
  });

  it("shows the e-mail as the name when there is no full name", () => {
    renderDashboard("free", "");
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("jane@example.com");
  });

  it("shows the automatic state and the minutes until the next sync to paying tiers", async () => {
    for (const tier of ["premium", "pro", "agency"] as const) {
      const view = renderDashboard(tier);
      // Active only once the server says both connections work.
      expect(await screen.findByText("Automatic Backup Active")).toBeTruthy();
      expect(screen.getByText(/backed up every 10 minutes/)).toBeTruthy();
      expect((await screen.findByTestId("next-sync")).textContent).toBe("Next sync in 7 minutes");
      expect(screen.queryByRole("button", { name: "Start Backup" })).toBeNull();
      // Paid plans can start a backup now too, as a secondary action.
      expect(screen.getByRole("button", { name: "Backup now" }).className).toContain(
        "btn-secondary",
      );
      expect(screen.queryByText("Manual backup mode")).toBeNull();
      void view;
      document.body.innerHTML = "";
    }
    // The new-posts check is for free users only.
    expect(dash.calls.some((c) => c.path === "/sync/check-new-posts")).toBe(false);
  });

  it("paid plans without Instagram or Drive see automatic backup paused, with the buttons", async () => {
    dash.oauth = { ...dash.oauth, instagram_connected: false, google_connected: false };
    renderDashboard("pro");
    const card = await screen.findByText("Automatic backup paused");
    const state = card.closest("[data-testid=tier-state]") as HTMLElement;
    expect(screen.queryByText("Automatic Backup Active")).toBeNull();
    expect(
      within(state).getByRole("link", { name: "Connect Instagram" }).getAttribute("href"),
    ).toBe("/settings");
    expect(within(state).getByRole("link", { name: "Connect Google Drive" })).toBeTruthy();
    expect(screen.queryByTestId("next-sync")).toBeNull();
    expect(screen.queryByText(/Ready for backup/)).toBeNull();
    cleanup();

    dash.oauth = {
      ...dash.oauth,
      instagram_connected: true,
      google_connected: true,
      google_needs_reconnect: true,
    };
    renderDashboard("premium");
    expect(await screen.findByRole("link", { name: "Reconnect Google Drive" })).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Connect Instagram" })).toBeNull();
  });

  const revokedReason =
    "Instagram access for @lumen.studio expired or was revoked. Reconnect the account in Settings to resume backups.";
  const revoked = (via: "instagram" | "facebook") =>
    makeAccount({
      id: "11111111-1111-4111-8111-111111111111",
      username: "lumen.studio",
      connected_via: via,
      status: "needs_reconnection",
      status_reason: revokedReason,
    });
  const accountsOf = (accounts: unknown[], tier: string) => ({
    accounts,
    limit: tier === "pro" || tier === "agency" ? 3 : 1,
    can_connect_more: false,
    remaining_slots: 0,
    subscription_tier: tier,
  });

  it.each([
    ["premium", "instagram", "/oauth/instagram/login"],
    ["pro", "facebook", "/oauth/facebook/auth-url"],
    ["agency", "instagram", "/oauth/instagram/login"],
    ["free", "facebook", "/oauth/facebook/auth-url"],
  ] as const)(
    "%s, a revoked account connected with %s Login: backups paused for it, its Reconnect right there",
    async (tier, via, path) => {
      dash.oauth = { ...dash.oauth, instagram_needs_reconnect: true };
      dash.accounts = accountsOf([revoked(via)], tier);
      // The header's badge says the server's health state (issue 36).
      dash.health = {
        state: "broken",
        ready: false,
        headline: "Backups paused for @lumen.studio",
        cause: revokedReason,
        fix: { label: "Reconnect @lumen.studio", path: "/settings?tab=connections" },
        since: null,
        next_step: null,
        accounts: [],
        destinations: [],
        plan: { state: "ok", cause: null, fix: null, since: null },
        last_run: null,
      };
      renderDashboard(tier);
      const state = await screen.findByTestId("stopped-accounts");
      const card = state.closest("[data-testid=tier-state]") as HTMLElement;
      expect(card.textContent).toContain(
        tier === "free" ? "Manual backup mode" : "Automatic backup paused",
      );
      expect(card.textContent).not.toContain("Automatic Backup Active");
      expect(state.textContent).toContain(`Backups of @lumen.studio are paused: ${revokedReason}`);
      expect(await screen.findByText("Backups paused for @lumen.studio")).toBeTruthy();
      // The Reconnect is right there, through the login the account was connected with.
      await userEvent.click(within(state).getByRole("button", { name: "Reconnect @lumen.studio" }));
      await waitFor(() => expect(dash.calls.some((c) => c.path.startsWith(path))).toBe(true));
    },
  );

  it("pro with a second, working account: backups go on, but not for the revoked one", async () => {
    dash.oauth = { ...dash.oauth, instagram_needs_reconnect: true };
    dash.accounts = accountsOf(
      [
        revoked("instagram"),
        makeAccount({ id: "22222222-2222-4222-8222-222222222222", username: "maya.creates" }),
      ],
      "pro",
    );
    renderDashboard("pro");
    const state = await screen.findByTestId("stopped-accounts");
    const card = state.closest("[data-testid=tier-state]") as HTMLElement;
    expect(card.textContent).toContain("Automatic Backup Active");
    expect(state.textContent).toContain("Backups of @lumen.studio are paused");
    expect(state.textContent).not.toContain("@maya.creates");
  });

  it("Instagram without Drive: the banner and the grid tell one story", async () => {
    dash.oauth = { ...dash.oauth, google_connected: false, google_email: null };
    dash.newPosts = {
      has_new_posts: true,
      new_posts_count: 152,
      unbacked_posts_count: 0,
      failed_backups_count: 0,
      upgrade_message: "Upgrade to Premium for automatic backups every 10 minutes.",
    };
    renderDashboard("free");
    const banner = await screen.findByRole("region", { name: "New posts" });
    expect(
      within(banner).getByText("152 posts on Instagram wait for their first backup."),
    ).toBeTruthy();
    expect(
      within(banner).getByRole("link", { name: "Connect Google Drive" }).getAttribute("href"),
    ).toBe("/settings");
    const empty = await screen.findByTestId("awaiting-drive");
    expect(empty.textContent).toContain("No posts backed up yet");
    expect(empty.textContent).toContain(
      "Your 152 Instagram posts appear here as they are backed up.",
    );
    expect(empty.textContent).toContain("Connect Google Drive to start the first backup.");
    expect(screen.queryByText("No posts found")).toBeNull();
    expect(screen.queryByText(/You have 152 new posts/)).toBeNull();
  });

  it("a free user beyond the post limit is told how many posts it leaves out, with Upgrade", async () => {
    stats.post_limit = 100;
    stats.posts_over_limit = 57;
    try {
      renderDashboard("free");
      const note = await screen.findByTestId("over-limit");
      expect(note.textContent).toBe(
        "57 older posts are beyond your Free plan's 100-post limit and not backed up. Upgrade to back them up. Upgrade",
      );
      expect(within(note).getByRole("link", { name: "Upgrade" }).getAttribute("href")).toBe(
        "/pricing",
      );
    } finally {
      stats.post_limit = null;
      stats.posts_over_limit = 0;
    }
  });

  it("shows the free-user banner when posts are new or not backed up", async () => {
    dash.newPosts = {
      has_new_posts: true,
      new_posts_count: 3,
      unbacked_posts_count: 2,
      failed_backups_count: 0,
      upgrade_message: "Upgrade to Premium for automatic backups.",
    };
    renderDashboard("free");
    const banner = await screen.findByRole("region", { name: "New posts" });
    expect(
      within(banner).getByText("You have 3 new posts and 2 posts not backed up yet."),
    ).toBeTruthy();
    expect(within(banner).getByText("Upgrade to Premium for automatic backups.")).toBeTruthy();
    expect(within(banner).getByText(/5-15 minutes/)).toBeTruthy();
    expect(within(banner).getByRole("link", { name: "Upgrade Now" }).getAttribute("href")).toBe(
      "/pricing",
    );
    expect(within(banner).getByRole("button", { name: "Backup Now" })).toBeTruthy();

    const before = dash.calls.filter((c) => c.path === "/sync/check-new-posts").length;
    await userEvent.click(within(banner).getByRole("button", { name: "Check Again" }));
    await waitFor(() =>
      expect(dash.calls.filter((c) => c.path === "/sync/check-new-posts").length).toBe(before + 1),
    );
  });

  it("hides the banner when nothing is new", async () => {
    renderDashboard("free");
    await waitFor(() =>
      expect(dash.calls.some((c) => c.path === "/sync/check-new-posts")).toBe(true),
    );
    expect(screen.queryByRole("region", { name: "New posts" })).toBeNull();
  });

  it("shows the running job with the server's progress, which the Pending card agrees with", async () => {
    // The run's own counters (2 of 5) are not what the card says: the stats' progress is,
    // and 12 - 3 is the Pending card beside it (issue 36).
    dash.jobs = [makeJob({ posts_processed: 2, posts_total: 5 })];
    stats.sync_progress = { processed: 3, total: 12 };
    stats.pending_backups = 9;
    renderDashboard("free");
    const card = await screen.findByRole("region", { name: "Sync in progress" });
    await waitFor(() => expect(within(card).getByText("Processing 3 of 12 posts...")).toBeTruthy());
    expect(within(card).getByRole("progressbar").getAttribute("aria-valuenow")).toBe("25");
    const pending = screen.getByText("Pending").closest(".stat-card") as HTMLElement;
    expect(within(pending).getByText("9")).toBeTruthy();
  });

  it("says 'Starting sync...' while the running sync holds no backups yet", async () => {
    dash.jobs = [makeJob({ posts_processed: 2, posts_total: 5 })];
    renderDashboard("free");
    const card = await screen.findByRole("region", { name: "Sync in progress" });
    // Once the stats (without progress) are shown, the card still has no numbers.
    await screen.findByText("1,234");
    expect(within(card).getByText("Starting sync...")).toBeTruthy();
  });

  it("hides the content grid until Instagram is connected", async () => {
    dash.oauth = { ...dash.oauth, instagram_connected: false };
    renderDashboard("free");
    await waitFor(() => expect(dash.calls.some((c) => c.path === "/oauth/status")).toBe(true));
    await waitFor(() =>
      expect(dash.calls.some((c) => c.path === "/sync/dashboard/stats")).toBe(true),
    );
    expect(screen.queryByText("Your Instagram Content")).toBeNull();
    expect(postRequests()).toHaveLength(0);
  });
});
