import type { Backup, SyncHealth } from "@keepsake/contracts";
import { screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BackupsPage } from "../src/pages/backups/backups-page.tsx";
import { fakeFetch, makePost } from "./fake-api.ts";
import { makeAuth, makeUser, renderWithAuth } from "./helpers.tsx";

// Issue 38: /backups of a user whose account is backed up to Dropbox says where its posts go
// and Dropbox's own state, from the server's health state (never "your Google Drive").
const post = makePost({ caption: "Backup caption" });
const backup: Backup = {
  id: "b1",
  status: "pending",
  destination: "dropbox",
  error_message: "Waiting: Dropbox is limiting requests right now",
  backup_size_bytes: null,
  created_at: "2026-03-05T12:00:00.000Z",
  updated_at: "2026-03-05T12:00:00.000Z",
  completed_at: null,
  attempts: 1,
  google_drive_file_id: null,
  google_drive_url: null,
  instagram_post_id: post.id,
  account_id: "a1",
  instagram_post: post,
};
const cause =
  "Dropbox is limiting how fast Keepsake can write: 1 backup waits and Keepsake retries on its own. Nothing to do.";
const none = { cause: null, fix: null, since: null };
const waiting = { label: "See waiting backups", path: "/backups?filter=pending" };
const health: SyncHealth = {
  state: "attention",
  ready: true,
  headline: "Backups slowed: Dropbox is limiting requests",
  cause,
  fix: waiting,
  since: null,
  next_step: null,
  accounts: [],
  destinations: [
    {
      kind: "dropbox",
      label: "j@example.com",
      state: "throttled",
      cause,
      fix: waiting,
      since: "2026-11-27T09:00:00.000Z",
    },
  ],
  plan: { state: "ok", ...none },
  last_run: null,
};

beforeEach(() => {
  vi.stubGlobal(
    "fetch",
    fakeFetch((req) => {
      if (req.path === "/sync/backups") return [200, { backups: [backup], total: 1 }];
      if (req.path === "/sync/health") return [200, health];
      if (req.path === "/sync/sync-jobs") return [200, []];
      return [404, { detail: "Not Found" }];
    }, []),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe("Backups screen of an account backed up to Dropbox", () => {
  it("says the posts are copied into Dropbox, and Dropbox's limit in its words", async () => {
    renderWithAuth(<BackupsPage />, {
      auth: makeAuth({ user: makeUser({ subscription_tier: "free" }) }),
      path: "/backups",
    });
    expect((await screen.findByTestId("throttled-note")).textContent).toBe(cause);
    expect(
      await screen.findByText("Every post Keepsake copies into your Dropbox, and how it went."),
    ).toBeTruthy();
    expect(document.body.textContent).not.toContain("Google Drive");
  });
});
