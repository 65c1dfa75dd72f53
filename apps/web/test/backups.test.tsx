import { type Backup, type SyncHealth, syncMessages } from "@keepsake/contracts";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toast } from "../src/lib/toast.ts";
import { BackupsPage } from "../src/pages/backups/backups-page.tsx";
import { syncJobText } from "../src/pages/backups/sync-job-card.tsx";
import { type FakeRequest, fakeFetch, makeAccount, makeJob, makePost } from "./fake-api.ts";
import { makeAuth, makeUser, renderWithAuth } from "./helpers.tsx";

let seq = 0;
function makeBackup(overrides: Partial<Backup> = {}): Backup {
  seq += 1;
  const post = makePost({ caption: `Backup caption ${seq}` });
  return {
    id: `b${seq}`,
    status: "completed",
    destination: "google_drive",
    error_message: null,
    backup_size_bytes: 1536,
    created_at: "2026-03-05T12:00:00.000Z",
    updated_at: "2026-03-05T12:00:00.000Z",
    completed_at: "2026-03-06T12:00:00.000Z",
    attempts: 1,
    google_drive_file_id: `f${seq}`,
    google_drive_url: `http://sandbox.test/drive/file/f${seq}`,
    instagram_post_id: post.id,
    account_id: "a1",
    instagram_post: post,
    ...overrides,
  };
}

let backups: Backup[];
let calls: FakeRequest[];
let retryStatus: (postId: string) => number;
let retryAllStatus: number;
/** The server's health state, when the test gives one (otherwise not answered). */
let healthAnswer: SyncHealth | null;
const spies = {
  info: vi.spyOn(toast, "info"),
  success: vi.spyOn(toast, "success"),
  error: vi.spyOn(toast, "error"),
};

beforeEach(() => {
  calls = [];
  retryStatus = () => 200;
  retryAllStatus = 200;
  healthAnswer = null;
  for (const spy of Object.values(spies)) spy.mockClear();
  vi.stubGlobal(
    "fetch",
    fakeFetch((req) => {
      if (req.path === "/sync/backups") {
        const status = req.params.status_filter as string | undefined;
        const account = req.params.account_id as string | undefined;
        const offset = Number(req.params.offset ?? 0);
        const limit = Number(req.params.limit ?? 50);
        const matching = backups.filter(
          (b) => (!status || b.status === status) && (!account || b.account_id === account),
        );
        return [200, { backups: matching.slice(offset, offset + limit), total: matching.length }];
      }
      if (req.path === "/sync/health" && healthAnswer) return [200, healthAnswer];
      if (req.path === "/sync/sync-jobs") {
        // The run's own counters differ: the card says the server's progress (issue 36).
        return [200, [makeJob({ status: "running", posts_processed: 1, posts_total: 4 })]];
      }
      if (req.path === "/sync/dashboard/stats") {
        return [
          200,
          {
            total_posts: 20,
            backed_up_posts: 10,
            pending_backups: 9,
            failed_backups: 1,
            posts_over_limit: 0,
            unavailable_posts: 0,
            post_limit: null,
            total_storage_used: 0,
            next_sync_in: null,
            last_sync: null,
            sync_progress: { processed: 3, total: 12 },
          },
        ];
      }
      if (req.path === "/accounts/instagram-accounts") {
        const account = (id: string, username: string) => makeAccount({ id, username });
        return [
          200,
          {
            accounts: [account("a1", "lumen.studio"), account("a2", "maya.creates")],
            limit: 3,
            can_connect_more: true,
            remaining_slots: 1,
            subscription_tier: "pro",
          },
        ];
      }
      if (req.path === "/sync/backups/retry-failed" && req.method === "POST") {
        if (retryAllStatus !== 200) return [retryAllStatus, { detail: "Server error" }];
        const account = (req.body as { account_id?: string } | undefined)?.account_id;
        const failed = backups.filter(
          (b) => b.status === "failed" && (!account || b.account_id === account),
        );
        for (const b of failed) b.status = "pending";
        return [200, { message: "ok", retried: failed.length }];
      }
      const retry = /^\/sync\/backups\/(.+)\/retry$/.exec(req.path);
      if (retry && req.method === "POST") {
        const id = decodeURIComponent(retry[1] as string);
        const status = retryStatus(id);
        if (status !== 200) return [status, { detail: "This backup is running right now" }];
        const b = backups.find((x) => x.instagram_post_id === id) as Backup;
        return [200, { message: "Backup retry started", backup: { ...b, status: "pending" } }];
      }
      return [404, { detail: "Not Found" }];
    }, calls),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const render = (tier: "free" | "pro" = "free") =>
  renderWithAuth(<BackupsPage />, {
    auth: makeAuth({ user: makeUser({ subscription_tier: tier }) }),
    path: "/backups",
  });

describe("Backups screen (SPEC §2 /backups)", () => {
  it("shows the heading, the auto-refresh badge, the running sync and the table", async () => {
    backups = [
      makeBackup(),
      makeBackup({
        status: "failed",
        error_message: "Your Google Drive is full.",
        backup_size_bytes: null,
        google_drive_url: null,
      }),
      makeBackup({ error_message: "skipped duplicate" }),
    ];
    render();
    expect(screen.getByRole("heading", { name: "Backup Progress" })).toBeTruthy();
    expect(screen.getByText("Auto-refreshing")).toBeTruthy();
    expect(await screen.findByText("Processing 3 of 12 posts...")).toBeTruthy();
    expect(screen.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("25");
    const rows = await screen.findAllByTestId("backup-row");
    // The duplicate is hidden.
    expect(rows).toHaveLength(2);
    const done = within(rows[0] as HTMLElement);
    expect(done.getByText("1.5 KB")).toBeTruthy();
    expect(done.getByRole("link", { name: "View" }).getAttribute("href")).toBe(
      backups[0]!.google_drive_url,
    );
    const failed = within(rows[1] as HTMLElement);
    expect(failed.getByText("Your Google Drive is full.")).toBeTruthy();
    expect(failed.getByRole("button", { name: "Retry" })).toBeTruthy();
    expect(failed.queryByRole("link", { name: "View" })).toBeNull();
    // No account filter for a free user.
    expect(screen.queryByRole("combobox", { name: "Account" })).toBeNull();
  });

  it("filters by status and says so when nothing matches", async () => {
    backups = [makeBackup()];
    render();
    await screen.findAllByTestId("backup-row");
    fireEvent.click(screen.getByRole("button", { name: "Failed" }));
    expect(await screen.findByText('No backups with status "failed" found.')).toBeTruthy();
    expect(
      calls.some((c) => c.path === "/sync/backups" && c.params.status_filter === "failed"),
    ).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "All" }));
    await screen.findAllByTestId("backup-row");
    expect(calls.at(-1)?.params.status_filter).toBeUndefined();
  });

  it("pages the list 50 at a time, from page 1 again when the filter changes", async () => {
    backups = Array.from({ length: 120 }, (_, i) =>
      makeBackup({ status: i % 2 ? "completed" : "failed", error_message: null }),
    );
    render();
    expect(await screen.findByText("120 backups")).toBeTruthy();
    expect(screen.getAllByTestId("backup-row")).toHaveLength(50);
    const nav = screen.getByRole("navigation", { name: "Backups pages" });
    expect(
      within(nav)
        .getAllByRole("button", { name: /^Page \d+$/ })
        .map((b) => b.textContent),
    ).toEqual(["1", "2", "3"]);
    fireEvent.click(within(nav).getByRole("button", { name: "Page 3" }));
    // The list's own requests (the running sync's card polls beside them).
    const lastListing = () => calls.filter((c) => c.path === "/sync/backups").at(-1);
    await waitFor(() => expect(screen.getAllByTestId("backup-row")).toHaveLength(20));
    expect(lastListing()?.params).toMatchObject({ limit: 50, offset: 100 });

    fireEvent.click(screen.getByRole("button", { name: "Failed" }));
    expect(await screen.findByText("60 backups")).toBeTruthy();
    expect(lastListing()?.params).toMatchObject({ status_filter: "failed", offset: 0 });
  });

  it("shows the first-sync hint when there are no backups at all", async () => {
    backups = [];
    render();
    expect(await screen.findByText("No backups found")).toBeTruthy();
    expect(screen.getByText("Start your first sync to see backups here.")).toBeTruthy();
  });

  it("offers the account filter to pro users with more than one account", async () => {
    backups = [makeBackup(), makeBackup({ account_id: "a2" })];
    render("pro");
    const select = (await screen.findByRole("combobox", { name: "Account" })) as HTMLSelectElement;
    await waitFor(() => expect(select.options.length).toBe(3));
    fireEvent.change(select, { target: { value: "a2" } });
    await waitFor(() => expect(screen.getAllByTestId("backup-row")).toHaveLength(1));
    expect(calls.at(-1)?.params.account_id).toBe("a2");
  });

  it("retries one failed backup", async () => {
    backups = [makeBackup({ status: "failed", error_message: "x" })];
    render();
    fireEvent.click(await screen.findByRole("button", { name: "Retry" }));
    await waitFor(() => expect(spies.success).toHaveBeenCalledWith("Backup retry started"));
    expect(
      calls.some(
        (c) =>
          c.method === "POST" && c.path === `/sync/backups/${backups[0]!.instagram_post_id}/retry`,
      ),
    ).toBe(true);
  });

  it("two retries sent at once both finish: no row is left on 'Retrying...'", async () => {
    backups = [
      makeBackup({ status: "failed", error_message: "x" }),
      makeBackup({ status: "failed", error_message: "y" }),
    ];
    render();
    await waitFor(() => expect(screen.getAllByRole("button", { name: "Retry" })).toHaveLength(2));
    for (const button of screen.getAllByRole("button", { name: "Retry" })) fireEvent.click(button);
    await waitFor(() => expect(spies.success).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(screen.queryByRole("button", { name: "Retrying..." })).toBeNull());
    expect(screen.getAllByRole("button", { name: "Retry" })).toHaveLength(2);
  });

  it("shows a backup Instagram withholds the media of as not available, with its reason and no Retry", async () => {
    backups = [
      makeBackup({
        status: "unavailable",
        error_message: syncMessages.mediaUnavailable,
        google_drive_url: null,
      }),
    ];
    render();
    expect(await screen.findByText("not available from Instagram")).toBeTruthy();
    expect(screen.getByText(syncMessages.mediaUnavailable)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Retry" })).toBeNull();
  });

  it("says where each backup is, or is going (issue 38)", async () => {
    backups = [
      makeBackup({ status: "completed", destination: "dropbox" }),
      makeBackup({ status: "pending", destination: "s3", google_drive_url: null }),
      makeBackup({ status: "completed" }),
    ];
    render();
    await screen.findAllByTestId("backup-row");
    expect(screen.getAllByTestId("backup-destination").map((e) => e.textContent)).toEqual([
      "In Dropbox",
      "To S3 storage",
      "In Google Drive",
    ]);
  });

  it("Retry All Failed retries every failed backup, of every page, in one call", async () => {
    backups = Array.from({ length: 230 }, () => makeBackup({ status: "failed" }));
    render();
    fireEvent.click(await screen.findByRole("button", { name: "Retry All Failed" }));
    await waitFor(() => expect(spies.success).toHaveBeenCalledWith("Retrying 230 failed backups"));
    const posts = calls.filter((c) => c.method === "POST").map((c) => c.path);
    expect(posts).toEqual(["/sync/backups/retry-failed"]);
  });

  it("Retry All Failed: none to retry, all retried, the call refused", async () => {
    backups = [makeBackup()];
    render();
    const button = await screen.findByRole("button", { name: "Retry All Failed" });
    fireEvent.click(button);
    await waitFor(() => expect(spies.info).toHaveBeenCalledWith("No failed backups to retry"));

    backups = [makeBackup({ status: "failed" }), makeBackup({ status: "failed" })];
    fireEvent.click(button);
    expect(screen.getByRole("button", { name: "Retrying..." })).toHaveProperty("disabled", true);
    await waitFor(() => expect(spies.success).toHaveBeenCalledWith("Retrying 2 failed backups"));

    retryAllStatus = 500;
    fireEvent.click(await screen.findByRole("button", { name: "Retry All Failed" }));
    await waitFor(() =>
      expect(spies.error).toHaveBeenCalledWith(
        "Some retries failed. Please check individual backups.",
      ),
    );
  });
});

describe("a provider's limit on /backups (issue 36)", () => {
  it("the Pending filter the fix opens says why backups wait, and that there is nothing to do", async () => {
    backups = [
      makeBackup({
        status: "pending",
        error_message: "Retrying: Google Drive is limiting requests right now",
      }),
    ];
    const cause =
      "Google Drive is limiting how fast Keepsake can write: 1 backup waits and Keepsake retries on its own. Nothing to do.";
    const none = { cause: null, fix: null, since: null };
    healthAnswer = {
      state: "attention",
      ready: true,
      headline: "Backups slowed: Google Drive is limiting requests",
      cause,
      fix: { label: "See waiting backups", path: "/backups?filter=pending" },
      since: null,
      next_step: null,
      accounts: [],
      destinations: [
        {
          kind: "google_drive",
          label: "j@example.com",
          state: "throttled",
          cause,
          fix: { label: "See waiting backups", path: "/backups?filter=pending" },
          since: "2026-11-27T09:00:00.000Z",
        },
      ],
      plan: { state: "ok", ...none },
      last_run: null,
    };
    renderWithAuth(<BackupsPage />, {
      auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }),
      path: "/backups?filter=pending",
    });
    const note = await screen.findByTestId("throttled-note");
    expect(note.textContent).toBe(cause);
    expect(screen.getByRole("button", { name: "Pending" }).getAttribute("aria-pressed")).toBe(
      "true",
    );
  });
});

describe("sync job texts (SPEC §4)", () => {
  it("say what happened in each state", () => {
    const job = (o: Record<string, unknown>) => makeJob(o) as Parameters<typeof syncJobText>[0];
    expect(syncJobText(job({ status: "running", posts_total: 0 }))).toBe("Starting sync...");
    expect(syncJobText(job({ status: "running", posts_total: 5 }), null)).toBe("Starting sync...");
    expect(
      syncJobText(job({ status: "running", posts_processed: 1, posts_total: 5 }), {
        processed: 2,
        total: 5,
      }),
    ).toBe("Processing 2 of 5 posts...");
    expect(syncJobText(job({ status: "completed", posts_processed: 7 }))).toBe(
      "Successfully processed 7 posts",
    );
    expect(syncJobText(job({ status: "completed", posts_processed: 0 }))).toBe(
      "No new posts to process",
    );
    expect(syncJobText(job({ status: "failed", error_message: "Drive is full" }))).toBe(
      "Drive is full",
    );
    expect(syncJobText(job({ status: "failed" }))).toBe(
      "Sync failed - please check your connections and try again",
    );
    expect(syncJobText(job({ status: "cancelled" }))).toBe("Sync was cancelled");
  });
});
