import type { Post } from "@keepsake/contracts";
import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { toast } from "../../src/lib/toast.ts";
import { DashboardPage } from "../../src/pages/dashboard/dashboard-page.tsx";
import { type FakeRequest, fakeFetch, makeAccount, makePost, startAnswer } from "../fake-api.ts";
import { makeAuth, makeUser, renderWithAuth } from "../helpers.tsx";

/** The dashboard's fake API and render helper, shared by the dashboard test files. */

export const stats = {
  total_posts: 1234,
  backed_up_posts: 1200,
  pending_backups: 0,
  failed_backups: 0,
  posts_over_limit: 0,
  post_limit: null as number | null,
  total_storage_used: 2.5 * 1024 * 1024,
  next_sync_in: 7,
  last_sync: null,
  /** The running backups' progress (null: none holds backups). */
  sync_progress: null as { processed: number; total: number } | null,
};

/** What a test may change before rendering; reset before each test. */
export const dash = {
  calls: [] as FakeRequest[],
  oauth: {} as Record<string, unknown>,
  allPosts: [] as Post[],
  postsFail: false,
  jobs: [] as unknown[],
  newPosts: {} as Record<string, unknown>,
  refreshReply: [0, null] as [number, unknown],
  /** A search counts its matches only so far (as the server does past its cap). */
  searchCap: Number.POSITIVE_INFINITY,
  /** The accounts answer, when a test needs other accounts than the two healthy ones. */
  accounts: null as unknown,
  /** The server's health state (`/sync/health`); null answers 404. */
  health: null as unknown,
};

function account(id: string, username: string) {
  return makeAccount({
    id,
    username,
    follower_count: 10,
    following_count: 1,
    posts_count: 50,
    synced_posts_count: 50,
    backed_up_posts_count: 50,
  });
}
const accountsAnswer = {
  accounts: [
    account("11111111-1111-4111-8111-111111111111", "lumen.studio"),
    account("22222222-2222-4222-8222-222222222222", "lumen.travel"),
  ],
  limit: 3,
  can_connect_more: true,
  remaining_slots: 1,
  subscription_tier: "pro",
};

function postsAnswer(params: Record<string, unknown>): [number, unknown] {
  if (dash.postsFail) return [500, { detail: "db down" }];
  let list = dash.allPosts;
  if (params.media_type) list = list.filter((p) => p.media_type === params.media_type);
  if (params.search) list = list.filter((p) => p.caption?.includes(String(params.search)));
  if (params.instagram_status === "gone") list = list.filter((p) => p.instagram_status === "gone");
  const offset = Number(params.offset ?? 0);
  const limit = Number(params.limit ?? 36);
  // A search counts its matches only so far (as the server does past `searchCap`).
  const exact = !params.search || list.length <= dash.searchCap;
  return [
    200,
    {
      posts: list.slice(offset, offset + limit),
      total: exact ? list.length : dash.searchCap,
      total_exact: exact,
    },
  ];
}

export const toastError = vi.spyOn(toast, "error");

/** Registers the fake API before each test of the file that calls it, and removes it after. */
export function withDashboardApi() {
  beforeEach(() => {
    dash.calls = [];
    dash.oauth = {
      instagram_connected: true,
      instagram_username: "lumen.studio",
      google_connected: true,
      google_email: "jane@gmail.test",
      instagram_needs_reconnect: false,
      google_needs_reconnect: false,
    };
    dash.allPosts = [];
    dash.searchCap = Number.POSITIVE_INFINITY;
    dash.accounts = null;
    dash.health = null;
    dash.postsFail = false;
    dash.jobs = [];
    dash.newPosts = {
      has_new_posts: false,
      new_posts_count: 0,
      unbacked_posts_count: 0,
      failed_backups_count: 0,
      upgrade_message: null,
    };
    dash.refreshReply = [202, startAnswer("Refreshing your posts")];
    stats.sync_progress = null;
    stats.pending_backups = 0;
    toastError.mockClear();
    vi.stubGlobal(
      "fetch",
      fakeFetch((req) => {
        switch (`${req.method} ${req.path}`) {
          case "GET /oauth/status":
            return [200, dash.oauth];
          case "GET /sync/dashboard/stats":
            return [200, stats];
          case "GET /sync/sync-jobs":
            return [200, dash.jobs];
          case "GET /sync/health":
            return dash.health ? [200, dash.health] : [404, { detail: "Not Found" }];
          case "GET /sync/posts":
            return postsAnswer(req.params);
          case "GET /sync/check-new-posts":
            return [200, dash.newPosts];
          case "POST /sync/refresh-instagram-posts":
            return dash.refreshReply;
          case "GET /accounts/instagram-accounts":
            return [200, dash.accounts ?? accountsAnswer];
          case "GET /sync/instagram-media/1789":
            return [200, new Blob(["jpeg bytes"], { type: "image/jpeg" })];
          default:
            return [404, { detail: "Not Found" }];
        }
      }, dash.calls),
    );
  });

  afterEach(() => {
    vi.unstubAllGlobals();
  });
}

export function renderDashboard(
  tier: "free" | "premium" | "pro" | "agency" = "free",
  fullName = "Jane Doe",
) {
  const auth = makeAuth({ user: makeUser({ subscription_tier: tier, full_name: fullName }) });
  renderWithAuth(<DashboardPage />, { auth, path: "/dashboard" });
  return auth;
}

export function postRequests() {
  return dash.calls.filter((c) => c.path === "/sync/posts").map((c) => c.params);
}

export function manyPosts(n: number, overrides: (i: number) => Partial<Post> = () => ({})) {
  return Array.from({ length: n }, (_, i) =>
    makePost({ caption: `post number ${i + 1}`, ...overrides(i) }),
  );
}

/** Waits until the posts pagination marks page `n` as the current one. */
export async function expectPostsPage(n: number) {
  await waitFor(() =>
    expect(
      within(screen.getByRole("navigation", { name: "Posts pages" }))
        .getByRole("button", { name: `Page ${n}` })
        .getAttribute("aria-current"),
    ).toBe("page"),
  );
}
