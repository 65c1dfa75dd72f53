import { QueryClientProvider } from "@tanstack/react-query";
import { act, render, renderHook } from "@testing-library/react";
import type { ReactElement, ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createQueryClient } from "../src/app.tsx";
import { toast } from "../src/lib/toast.ts";
import {
  MANUAL_BACKUP,
  type ManualBackupConnections,
  manualBackupMessages,
  PROGRESS_TOAST_ID,
  useManualBackup,
} from "../src/pages/dashboard/use-manual-backup.ts";
import { type FakeRequest, fakeFetch, makeJob, startAnswer } from "./fake-api.ts";

/** A toast's words (a toast with a link renders it; the link's own words are left out). */
function toastText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  const { container, unmount } = render(content as ReactElement);
  const link = container.querySelector("a")?.textContent ?? "";
  const text = container.textContent?.replace(link, "").trim();
  unmount();
  return text;
}
/** Where a toast's link leads. */
function toastLink(content: unknown): string | null | undefined {
  const { container, unmount } = render(content as ReactElement);
  const href = container.querySelector("a")?.getAttribute("href");
  unmount();
  return href;
}

const connected: ManualBackupConnections = { instagramConnected: true, googleConnected: true };

type StatusAnswer = [number, unknown];
let statusAnswers: StatusAnswer[];
let startReply: [number, unknown];
let statsReply: [number, unknown];
let healthReply: [number, unknown];
let calls: FakeRequest[];

function syncing(processed: number, total: number): StatusAnswer {
  return [
    200,
    {
      is_syncing: true,
      // The toast says the server's progress, not the run's own counters (issue 36).
      sync_job: makeJob({ posts_processed: 0, posts_total: 1 }),
      progress: { processed, total },
    },
  ];
}
function done(status: string, extra: Record<string, unknown> = {}): StatusAnswer {
  return [200, { is_syncing: false, sync_job: makeJob({ status, ...extra }) }];
}

const spies = {
  dismiss: vi.spyOn(toast, "dismiss"),
  info: vi.spyOn(toast, "info"),
  success: vi.spyOn(toast, "success"),
  error: vi.spyOn(toast, "error"),
  warning: vi.spyOn(toast, "warning"),
};

function statusPolls() {
  return calls.filter((c) => c.path === "/sync/status").length;
}

function setup(connections: ManualBackupConnections | undefined = connected, tier = "free") {
  const client = createQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  return renderHook(() => useManualBackup(connections, tier), { wrapper });
}

describe("manual backup flow (SPEC §4, §9)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    calls = [];
    statusAnswers = [];
    startReply = [202, startAnswer()];
    statsReply = [500, { detail: "down" }];
    healthReply = [500, { detail: "down" }];
    for (const spy of Object.values(spies)) spy.mockClear();
    vi.stubGlobal(
      "fetch",
      fakeFetch((req) => {
        if (req.path === "/sync/start") return startReply;
        if (req.path === "/sync/status") return statusAnswers.shift() ?? syncing(1, 10);
        if (req.path === "/sync/dashboard/stats") return statsReply;
        if (req.path === "/sync/health") return healthReply;
        return [200, []];
      }, calls),
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("waits 2 s, polls every 3 s, toasts progress every 4th poll and the completion", async () => {
    statusAnswers = [
      syncing(0, 0),
      syncing(1, 10),
      syncing(2, 10),
      syncing(4, 10),
      syncing(6, 10),
      done("completed", { posts_processed: 10, posts_total: 10 }),
    ];
    const { result } = setup();
    await act(() => result.current.start());
    expect(calls.map((c) => `${c.method} ${c.path}`)).toContain("POST /sync/start");
    expect(spies.info).toHaveBeenCalledWith("Sync started");
    expect(result.current.isWaiting).toBe(true);
    expect(statusPolls()).toBe(0);

    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs - 1));
    expect(statusPolls()).toBe(0);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(statusPolls()).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.pollMs - 1));
    expect(statusPolls()).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(statusPolls()).toBe(2);

    // Polls 3 and 4: the 4th brings the progress toast.
    spies.info.mockClear();
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.pollMs * 2));
    expect(statusPolls()).toBe(4);
    expect(spies.info).toHaveBeenCalledTimes(1);
    expect(spies.info).toHaveBeenCalledWith("Processing 4 of 10 posts...", {
      toastId: PROGRESS_TOAST_ID,
    });

    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.pollMs * 2));
    expect(statusPolls()).toBe(6);
    expect(spies.success).toHaveBeenCalledWith(manualBackupMessages.completed);
    expect(result.current.isWaiting).toBe(false);

    // Polling has stopped.
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.pollMs * 5));
    expect(statusPolls()).toBe(6);
    expect(spies.info).toHaveBeenCalledTimes(1);
  });

  it("the completion toast gives the server's numbers and closes the progress toast first", async () => {
    const stats = {
      total_posts: 157,
      backed_up_posts: 100,
      pending_backups: 0,
      failed_backups: 0,
      posts_over_limit: 57,
      post_limit: 100,
      total_storage_used: 1000,
      next_sync_in: null,
      last_sync: null,
    };
    statsReply = [200, stats];
    statusAnswers = [done("completed", { posts_processed: 100, posts_total: 100 })];
    const { result } = setup();
    await act(() => result.current.start());
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs));
    expect(spies.dismiss).toHaveBeenCalledWith(PROGRESS_TOAST_ID);
    expect(spies.success).toHaveBeenCalledWith(
      "Backup completed successfully! 100 posts are in your Google Drive. 57 older posts are beyond your Free plan's 100-post limit and not backed up. Upgrade to back them up.",
    );
    expect(spies.dismiss.mock.invocationCallOrder[0]!).toBeLessThan(
      spies.success.mock.invocationCallOrder[0]!,
    );

    // Pressed again at the limit: nothing was backed up, and the toast says so.
    spies.success.mockClear();
    statusAnswers = [done("completed", { posts_processed: 0, posts_total: 0 })];
    await act(() => result.current.start());
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs));
    expect(spies.success).toHaveBeenCalledWith(
      "No new posts to back up. 100 posts are in your Google Drive. 57 older posts are beyond your Free plan's 100-post limit and not backed up. Upgrade to back them up.",
    );
  });

  it("the completion toast names where the accounts are backed up (issue 38)", async () => {
    statsReply = [
      200,
      {
        total_posts: 8,
        backed_up_posts: 8,
        pending_backups: 0,
        failed_backups: 0,
        posts_over_limit: 0,
        post_limit: null,
        total_storage_used: 1000,
        next_sync_in: null,
        last_sync: null,
      },
    ];
    // Where the accounts are backed up: the server's health state lists the destinations in use.
    healthReply = [
      200,
      { state: "ready", headline: "ok", accounts: [], destinations: [{ kind: "dropbox" }] },
    ];
    statusAnswers = [done("completed", { posts_processed: 8, posts_total: 8 })];
    const { result } = setup(connected, "pro");
    await act(() => result.current.start());
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs));
    expect(spies.success).toHaveBeenCalledWith(
      "Backup completed successfully! 8 posts are in your Dropbox.",
    );

    // Accounts in two places: both named.
    spies.success.mockClear();
    healthReply = [
      200,
      {
        state: "ready",
        headline: "ok",
        accounts: [],
        destinations: [{ kind: "google_drive" }, { kind: "s3" }],
      },
    ];
    statusAnswers = [done("completed", { posts_processed: 8, posts_total: 8 })];
    await act(() => result.current.start());
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs));
    expect(spies.success).toHaveBeenCalledWith(
      "Backup completed successfully! 8 posts are in your Google Drive and S3 storage.",
    );
  });

  it("warns after 60 polls and stops", async () => {
    const { result } = setup();
    await act(() => result.current.start());
    await act(() =>
      vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs + MANUAL_BACKUP.pollMs * 59),
    );
    expect(statusPolls()).toBe(60);
    expect(spies.warning).toHaveBeenCalledWith(
      "Backup is taking longer than expected. It will continue in the background.",
    );
    expect(result.current.isWaiting).toBe(false);
    // Progress toasts at polls 4, 8, … 56 (the 60th brings the warning), plus the start toast.
    expect(spies.info).toHaveBeenCalledTimes(15);
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.pollMs * 10));
    expect(statusPolls()).toBe(60);
    expect(spies.success).not.toHaveBeenCalled();
  });

  it("a failing status poll only ends the waiting state", async () => {
    statusAnswers = [syncing(1, 5), [500, { detail: "boom" }]];
    const { result } = setup();
    await act(() => result.current.start());
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs + MANUAL_BACKUP.pollMs));
    expect(statusPolls()).toBe(2);
    expect(result.current.isWaiting).toBe(false);
    expect(spies.error).not.toHaveBeenCalled();
    expect(spies.warning).not.toHaveBeenCalled();
    expect(spies.success).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.pollMs * 5));
    expect(statusPolls()).toBe(2);
  });

  it("reports a failed or cancelled job when it ends", async () => {
    statusAnswers = [done("failed", { error_message: null })];
    const { result } = setup();
    await act(() => result.current.start());
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs));
    expect(spies.error).toHaveBeenCalledWith(
      "Sync failed - please check your connections and try again",
    );

    statusAnswers = [done("cancelled")];
    await act(() => result.current.start());
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs));
    expect(spies.info).toHaveBeenCalledWith("Sync was cancelled");
  });

  it("toasts 'Failed to start sync' or the server's detail when the start fails", async () => {
    startReply = [500, {}];
    const { result } = setup();
    await act(() => result.current.start());
    expect(spies.error).toHaveBeenCalledWith("Failed to start sync");
    expect(result.current.isWaiting).toBe(false);

    startReply = [400, { detail: "Please connect your Google Drive account first" }];
    await act(() => result.current.start());
    // Issue 36: a "connect first" toast carries the link to where the connection is made.
    expect(toastText(spies.error.mock.lastCall?.[0])).toBe(
      "Please connect your Google Drive account first",
    );
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs * 3));
    expect(statusPolls()).toBe(0);
  });

  it("asks for the missing connection before calling the server (SPEC §5)", async () => {
    const noInstagram = setup({ instagramConnected: false, googleConnected: false });
    await act(() => noInstagram.result.current.start());
    // Issue 36: each "connect first" toast carries the link to where the connection is made.
    expect(toastText(spies.error.mock.lastCall?.[0])).toBe(
      "Please connect your Instagram account first",
    );
    expect(toastLink(spies.error.mock.lastCall?.[0])).toBe("/settings?tab=connections");
    const noDrive = setup({ instagramConnected: true, googleConnected: false });
    await act(() => noDrive.result.current.start());
    expect(toastText(spies.error.mock.lastCall?.[0])).toBe(
      "Please connect your Google Drive account first",
    );
    expect(toastLink(spies.error.mock.lastCall?.[0])).toBe("/settings?tab=connections");
    expect(calls.filter((c) => c.path === "/sync/start")).toHaveLength(0);
  });

  it("stops polling when the dashboard unmounts", async () => {
    const { result, unmount } = setup();
    await act(() => result.current.start());
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.firstPollMs));
    expect(statusPolls()).toBe(1);
    unmount();
    await act(() => vi.advanceTimersByTimeAsync(MANUAL_BACKUP.pollMs * 5));
    expect(statusPolls()).toBe(1);
  });
});
