import type { DashboardStats, SyncHealth } from "@keepsake/contracts";
import { render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backupDoneText, completedJobText } from "../src/lib/backup-summary.ts";
import { BackupsPage } from "../src/pages/backups/backups-page.tsx";
import { SyncJobCard } from "../src/pages/backups/sync-job-card.tsx";
import { fakeFetch, makeJob } from "./fake-api.ts";
import { renderWithAuth } from "./helpers.tsx";

// Issue 36: what a run whose backups failed says, from the server's numbers and health state.
const stats = (over: Partial<DashboardStats> = {}): DashboardStats => ({
  total_posts: 10,
  backed_up_posts: 8,
  pending_backups: 0,
  failed_backups: 2,
  posts_over_limit: 0,
  unavailable_posts: 0,
  post_limit: 100,
  total_storage_used: 0,
  next_sync_in: null,
  last_sync: null,
  ...over,
});

const driveRevoked = {
  state: "broken",
  cause: "Google Drive access was revoked or expired.",
  fix: { label: "Reconnect Google Drive", path: "/settings?tab=connections" },
} as SyncHealth;

describe("a run whose backups failed", () => {
  it("the toast names a broken connection instead of sending the user to retry", () => {
    const text = backupDoneText(
      { posts_processed: 2, posts_failed: 2 },
      stats(),
      "premium",
      driveRevoked,
    );
    expect(text).toContain("Backup finished with errors.");
    expect(text).toContain("2 backups failed: Google Drive access was revoked or expired.");
    expect(text).not.toContain("retry on the Backups page");
    // Without a broken connection, a retry is the fix.
    expect(backupDoneText({ posts_processed: 2 }, stats(), "premium")).toContain(
      "2 backups failed: retry on the Backups page.",
    );
  });

  it("says which posts in Drive are older than the plan's limit", () => {
    expect(
      backupDoneText(
        { posts_processed: 3 },
        stats({ backed_up_posts: 105, failed_backups: 0 }),
        "free",
      ),
    ).toContain(
      "105 posts are in your Google Drive (5 older ones from before your plan's 100-post limit stay there).",
    );
  });

  it("is never 'Successfully processed'", () => {
    expect(completedJobText({ mode: "backup", posts_processed: 2, posts_failed: 2 })).toBe(
      "All 2 backups failed.",
    );
    expect(completedJobText({ mode: "backup", posts_processed: 5, posts_failed: 1 })).toBe(
      "4 posts backed up, 1 backup failed.",
    );
    expect(completedJobText({ mode: "backup", posts_processed: 5, posts_failed: 0 })).toBe(
      "Successfully processed 5 posts",
    );
  });

  it("the /backups card uses the server's words for the run and links its fix", () => {
    const job = makeJob({
      id: "j9",
      status: "completed",
      posts_processed: 2,
      posts_total: 2,
      posts_failed: 2,
    });
    render(
      <SyncJobCard
        job={job as never}
        run={{
          id: "j9",
          outcome: "failed",
          title: "Last sync failed",
          text: "All 2 backups failed: Google Drive access was revoked or expired.",
          fix: { label: "Reconnect Google Drive", path: "/settings?tab=connections" },
        }}
      />,
    );
    expect(screen.getByText("Last sync failed")).toBeTruthy();
    expect(screen.queryByText(/Successfully processed/)).toBeNull();
    expect(screen.getByRole("link", { name: "Reconnect Google Drive" }).getAttribute("href")).toBe(
      "/settings?tab=connections",
    );
  });

  it("the /backups card waits for the server's words for a finished run instead of guessing", () => {
    const job = makeJob({ id: "j9", status: "failed", error_message: "Sync failed" });
    const stale = {
      id: "j9",
      outcome: "running" as const,
      title: "Sync in progress",
      text: "Starting sync...",
      fix: null,
    };
    const { rerender } = render(<SyncJobCard job={job as never} run={null} runLoading />);
    const card = screen.getByRole("region", { name: "Current sync" });
    expect(card.textContent).toContain("Loading...");
    expect(card.textContent).not.toMatch(/failed|Successfully processed/);
    // A health answer that still saw the run going is not this finished run's words.
    rerender(<SyncJobCard job={job as never} run={stale} />);
    expect(card.textContent).not.toContain("Sync in progress");
    // Once health has answered (or failed), the job's own words are the fallback.
    expect(card.textContent).toContain("Last sync failed");
  });

  it("/backups shows a finished run's words only once the health state has answered", async () => {
    let answerHealth = () => {};
    const health = new Promise<void>((r) => {
      answerHealth = r;
    });
    vi.stubGlobal(
      "fetch",
      fakeFetch(async (req) => {
        if (req.path === "/sync/sync-jobs") return [200, [makeJob({ id: "j9", status: "failed" })]];
        if (req.path !== "/sync/health") return [404, { detail: "Not Found" }];
        await health;
        const fix = { label: "Reconnect Google Drive", path: "/settings?tab=connections" };
        const run = { id: "j9", outcome: "failed", title: "Last sync failed", text: "x", fix };
        return [
          200,
          { state: "broken", headline: "", accounts: [], destinations: [], last_run: run },
        ];
      }),
    );
    renderWithAuth(<BackupsPage />, { path: "/backups" });
    const card = await screen.findByRole("region", { name: "Current sync" });
    // Without the health state the card would say "Last sync failed" and hide the fix.
    expect(card.textContent).toContain("Loading...");
    expect(card.textContent).not.toContain("failed");
    answerHealth();
    await waitFor(() =>
      expect(screen.getByRole("link", { name: "Reconnect Google Drive" })).toBeTruthy(),
    );
    expect(card.textContent).toContain("Last sync failed");
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});
