import type { Post } from "@keepsake/contracts";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { toast } from "react-toastify";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { api } from "../src/api/client.ts";
import { DashboardPage } from "../src/pages/dashboard/dashboard-page.tsx";
import { type FakeRequest, fakeAdapter, makeJob, makePost, startAnswer } from "./fake-api.ts";
import { makeAuth, makeUser, renderWithAuth } from "./helpers.tsx";

const stats = {
  total_posts: 1234,
  backed_up_posts: 1200,
  pending_backups: 0,
  failed_backups: 0,
  posts_over_limit: 0,
  post_limit: null as number | null,
  total_storage_used: 2.5 * 1024 * 1024,
  next_sync_in: 7,
  last_sync: null,
};

let calls: FakeRequest[];
let oauth: Record<string, unknown>;
let allPosts: Post[];
let postsFail: boolean;
let jobs: unknown[];
let newPosts: Record<string, unknown>;
let refreshReply: [number, unknown];

function account(id: string, username: string) {
  return {
    id,
    username,
    display_name: null,
    profile_picture_url: null,
    follower_count: 10,
    following_count: 1,
    posts_count: 50,
    synced_posts_count: 50,
    backed_up_posts_count: 50,
    connected_at: "2026-01-01T00:00:00.000Z",
    last_sync: null,
    token_expires_at: null,
    connected_via: "instagram",
    status: "healthy",
    status_reason: null,
  };
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
  if (postsFail) return [500, { detail: "db down" }];
  let list = allPosts;
  if (params.media_type) list = list.filter((p) => p.media_type === params.media_type);
  if (params.search) list = list.filter((p) => p.caption?.includes(String(params.search)));
  const offset = Number(params.offset ?? 0);
  const limit = Number(params.limit ?? 36);
  // A search counts its matches only so far (as the server does past `searchCap`).
  const exact = !params.search || list.length <= searchCap;
  return [
    200,
    {
      posts: list.slice(offset, offset + limit),
      total: exact ? list.length : searchCap,
      total_exact: exact,
    },
  ];
}

let searchCap = Number.POSITIVE_INFINITY;

const toastError = vi.spyOn(toast, "error");

beforeEach(() => {
  calls = [];
  oauth = {
    instagram_connected: true,
    instagram_username: "lumen.studio",
    google_connected: true,
    google_email: "jane@gmail.test",
    instagram_needs_reconnect: false,
    google_needs_reconnect: false,
  };
  allPosts = [];
  searchCap = Number.POSITIVE_INFINITY;
  postsFail = false;
  jobs = [];
  newPosts = {
    has_new_posts: false,
    new_posts_count: 0,
    unbacked_posts_count: 0,
    upgrade_message: null,
  };
  refreshReply = [202, startAnswer("Refreshing your posts")];
  toastError.mockClear();
  api.defaults.adapter = fakeAdapter((req) => {
    switch (`${req.method} ${req.path}`) {
      case "GET /oauth/status":
        return [200, oauth];
      case "GET /sync/dashboard/stats":
        return [200, stats];
      case "GET /sync/sync-jobs":
        return [200, jobs];
      case "GET /sync/posts":
        return postsAnswer(req.params);
      case "GET /sync/check-new-posts":
        return [200, newPosts];
      case "POST /sync/refresh-instagram-posts":
        return refreshReply;
      case "GET /accounts/instagram-accounts":
        return [200, accountsAnswer];
      case "GET /sync/instagram-media/1789":
        return [200, new Blob(["jpeg bytes"], { type: "image/jpeg" })];
      default:
        return [404, { detail: "Not Found" }];
    }
  }, calls);
});

const originalAdapter = api.defaults.adapter;
afterEach(() => {
  api.defaults.adapter = originalAdapter;
});

function renderDashboard(
  tier: "free" | "premium" | "pro" | "agency" = "free",
  fullName = "Jane Doe",
) {
  const auth = makeAuth({ user: makeUser({ subscription_tier: tier, full_name: fullName }) });
  renderWithAuth(<DashboardPage />, { auth, path: "/dashboard" });
  return auth;
}

function postRequests() {
  return calls.filter((c) => c.path === "/sync/posts").map((c) => c.params);
}

function manyPosts(n: number, overrides: (i: number) => Partial<Post> = () => ({})) {
  return Array.from({ length: n }, (_, i) =>
    makePost({ caption: `post number ${i + 1}`, ...overrides(i) }),
  );
}

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
    expect(calls.some((c) => c.path === "/sync/check-new-posts")).toBe(false);
  });

  it("paid plans without Instagram or Drive see automatic backup paused, with the buttons", async () => {
    oauth = { ...oauth, instagram_connected: false, google_connected: false };
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

    oauth = {
      ...oauth,
      instagram_connected: true,
      google_connected: true,
      google_needs_reconnect: true,
    };
    renderDashboard("premium");
    expect(await screen.findByRole("link", { name: "Reconnect Google Drive" })).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Connect Instagram" })).toBeNull();
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
    newPosts = {
      has_new_posts: true,
      new_posts_count: 3,
      unbacked_posts_count: 2,
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

    const before = calls.filter((c) => c.path === "/sync/check-new-posts").length;
    await userEvent.click(within(banner).getByRole("button", { name: "Check Again" }));
    await waitFor(() =>
      expect(calls.filter((c) => c.path === "/sync/check-new-posts").length).toBe(before + 1),
    );
  });

  it("hides the banner when nothing is new", async () => {
    renderDashboard("free");
    await waitFor(() => expect(calls.some((c) => c.path === "/sync/check-new-posts")).toBe(true));
    expect(screen.queryByRole("region", { name: "New posts" })).toBeNull();
  });

  it("shows the running job", async () => {
    jobs = [makeJob({ posts_processed: 3, posts_total: 12 })];
    renderDashboard("free");
    const card = await screen.findByRole("region", { name: "Sync in progress" });
    expect(within(card).getByText("Processing 3 of 12 posts...")).toBeTruthy();
    expect(within(card).getByRole("progressbar").getAttribute("aria-valuenow")).toBe("25");
  });

  it("hides the content grid until Instagram is connected", async () => {
    oauth = { ...oauth, instagram_connected: false };
    renderDashboard("free");
    await waitFor(() => expect(calls.some((c) => c.path === "/oauth/status")).toBe(true));
    await waitFor(() => expect(calls.some((c) => c.path === "/sync/dashboard/stats")).toBe(true));
    expect(screen.queryByText("Your Instagram Content")).toBeNull();
    expect(postRequests()).toHaveLength(0);
  });
});

describe("content grid", () => {
  it("pages 36 at a time with at most 7 page buttons", async () => {
    allPosts = manyPosts(400);
    renderDashboard();
    await screen.findByText("Your Instagram Content");
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(36));
    const nav = screen.getByRole("navigation", { name: "Posts pages" });
    const pageButtons = () =>
      within(nav)
        .getAllByRole("button", { name: /^Page \d+$/ })
        .map((b) => b.textContent);
    expect(pageButtons()).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
    expect(
      (within(nav).getByRole("button", { name: "Previous" }) as HTMLButtonElement).disabled,
    ).toBe(true);

    await userEvent.click(within(nav).getByRole("button", { name: "Page 6" }));
    await waitFor(() => expect(postRequests().at(-1)).toMatchObject({ offset: 180, limit: 36 }));
    await waitFor(() => expect(pageButtons()).toEqual(["3", "4", "5", "6", "7", "8", "9"]));
    expect(within(nav).getByRole("button", { name: "Page 6" }).getAttribute("aria-current")).toBe(
      "page",
    );
    await waitFor(() => expect(screen.getAllByTestId("post-tile")[0]?.textContent).toBeTruthy());

    await userEvent.click(within(nav).getByRole("button", { name: "Next" }));
    await waitFor(() => expect(postRequests().at(-1)).toMatchObject({ offset: 216 }));
  });

  it("says when a search total is a lower bound, and Next goes past it", async () => {
    allPosts = manyPosts(200);
    searchCap = 72;
    renderDashboard();
    await screen.findByText("Your Instagram Content");
    expect(await screen.findByText("200 posts")).toBeTruthy();
    await userEvent.type(screen.getByPlaceholderText("Search posts..."), "number");
    expect(await screen.findByText("72+ posts")).toBeTruthy();
    const nav = screen.getByRole("navigation", { name: "Posts pages" });
    const pages = within(nav)
      .getAllByRole("button", { name: /^Page \d+$/ })
      .map((b) => b.textContent);
    // 72 counted = 2 pages, and at least one more.
    expect(pages).toEqual(["1", "2", "3"]);
    await userEvent.click(within(nav).getByRole("button", { name: "Page 3" }));
    await waitFor(() => expect(postRequests().at(-1)).toMatchObject({ offset: 72 }));
  });

  it("search and filter reset to page 1, and are sent to the server", async () => {
    allPosts = manyPosts(100, (i) => ({ media_type: i % 2 === 0 ? "image" : "video" }));
    renderDashboard();
    const nav = await screen.findByRole("navigation", { name: "Posts pages" });
    await userEvent.click(within(nav).getByRole("button", { name: "Page 3" }));
    await waitFor(() => expect(postRequests().at(-1)).toMatchObject({ offset: 72 }));

    await userEvent.type(screen.getByPlaceholderText("Search posts..."), "number 1");
    await waitFor(() =>
      expect(postRequests().at(-1)).toMatchObject({ search: "number 1", offset: 0 }),
    );
    // The page is not asked for with the new search: no request combines it with offset 72.
    expect(postRequests().filter((p) => p.search && p.offset !== 0)).toEqual([]);
    // Debounced: one request for the whole word, not one per key.
    expect(postRequests().filter((p) => p.search).length).toBe(1);

    await userEvent.clear(screen.getByPlaceholderText("Search posts..."));
    // Back to the unfiltered first page (from the cache).
    await waitFor(() =>
      expect(
        within(screen.getByRole("navigation", { name: "Posts pages" }))
          .getByRole("button", { name: "Page 1" })
          .getAttribute("aria-current"),
      ).toBe("page"),
    );
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(36));
    const nav2 = screen.getByRole("navigation", { name: "Posts pages" });
    await userEvent.click(within(nav2).getByRole("button", { name: "Page 2" }));
    await waitFor(() => expect(postRequests().at(-1)).toMatchObject({ offset: 36 }));

    await userEvent.selectOptions(
      screen.getByRole("combobox", { name: "Post type" }),
      "Videos Only",
    );
    await waitFor(() =>
      expect(postRequests().at(-1)).toMatchObject({ media_type: "video", offset: 0 }),
    );
    await userEvent.selectOptions(
      screen.getByRole("combobox", { name: "Post type" }),
      "Photos Only",
    );
    await waitFor(() =>
      expect(postRequests().at(-1)).toMatchObject({ media_type: "image", offset: 0 }),
    );
    expect(await screen.findByText("50 posts")).toBeTruthy();
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Post type" }), "All Posts");
    expect(await screen.findByText("100 posts")).toBeTruthy();
    // Every page asked for while filtering started at offset 0.
    expect(postRequests().filter((p) => p.media_type && p.offset !== 0)).toEqual([]);
  });

  it("says 'No posts found', with a hint while searching", async () => {
    renderDashboard();
    expect(await screen.findByText("No posts found")).toBeTruthy();
    expect(screen.queryByText("Try a different search term")).toBeNull();
    await userEvent.type(screen.getByPlaceholderText("Search posts..."), "zzz");
    expect(await screen.findByText("Try a different search term")).toBeTruthy();
  });

  it("shows 'Failed to load posts' with 'Try Again'", async () => {
    postsFail = true;
    renderDashboard();
    expect(await screen.findByText("Failed to load posts")).toBeTruthy();
    postsFail = false;
    allPosts = manyPosts(2);
    await userEvent.click(screen.getByRole("button", { name: "Try Again" }));
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(2));
  });

  it("labels tiles by type, shows the badge, the date and likes, and marks stories", async () => {
    allPosts = [
      makePost({ media_type: "image", backup_status: "completed", is_backed_up: true }),
      makePost({ media_type: "video", backup_status: "processing", is_backed_up: false }),
      makePost({ media_type: "carousel", backup_status: null, is_backed_up: false }),
      makePost({
        media_type: "image",
        media_product_type: "story",
        backup_status: "pending",
        is_backed_up: false,
      }),
    ];
    renderDashboard();
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(4));
    const tiles = screen.getAllByTestId("post-tile");
    const text = tiles.map((t) => t.textContent ?? "");
    expect(text[0]).toContain("Photo");
    expect(text[0]).toContain("backed up");
    expect(text[0]).toContain("Mar 5, 2026");
    expect(text[0]).toContain("1,234");
    expect(text[1]).toContain("Video");
    expect(text[1]).toContain("in progress");
    expect(text[2]).toContain("Album");
    expect(text[2]).toContain("pending backup");
    expect(text[3]).toContain("Story");
    expect(text[3]).toContain("in progress");
  });

  it("opens an image's media URL in a new tab", async () => {
    const open = vi.spyOn(window, "open").mockReturnValue(null);
    allPosts = [makePost({ media_type: "image", media_url: "http://cdn.test/full.jpg" })];
    renderDashboard();
    const tile = await screen.findByRole("button", { name: /^Open image/ });
    await userEvent.click(tile);
    expect(open).toHaveBeenCalledWith("http://cdn.test/full.jpg", "_blank", "noopener,noreferrer");
    open.mockRestore();
  });

  it("plays a video in a modal with a focus trap; Escape closes and focus returns", async () => {
    allPosts = [
      makePost({
        media_type: "video",
        media_url: "http://cdn.test/clip.mp4",
        thumbnail_url: "http://cdn.test/clip.jpg",
        caption: "Golden hour",
        like_count: 42,
      }),
    ];
    renderDashboard();
    const tile = await screen.findByRole("button", { name: /^Play video/ });
    await userEvent.click(tile);
    const dialog = screen.getByRole("dialog");
    expect(within(dialog).getByText("Golden hour").className).toContain("video-modal-caption");
    expect(within(dialog).getByText("42 likes", { exact: false })).toBeTruthy();
    expect(within(dialog).getByText("Mar 5, 2026")).toBeTruthy();
    const video = dialog.querySelector("video");
    expect(video?.getAttribute("src")).toBe("http://cdn.test/clip.mp4");
    const close = within(dialog).getByRole("button", { name: "Close" });
    expect(document.activeElement).toBe(close);
    // Tab from the last focusable wraps to the first, Shift+Tab from the first to the last.
    await userEvent.tab();
    expect(document.activeElement).toBe(video);
    await userEvent.tab();
    expect(document.activeElement).toBe(close);
    await userEvent.tab({ shift: true });
    expect(document.activeElement).toBe(video);

    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(tile);

    await userEvent.click(tile);
    await userEvent.click(
      within(screen.getByRole("dialog")).getByRole("button", { name: "Close" }),
    );
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("opens tiles from the keyboard", async () => {
    allPosts = [makePost({ media_type: "video" })];
    renderDashboard();
    const tile = await screen.findByRole("button", { name: /^Play video/ });
    tile.focus();
    await userEvent.keyboard("{Enter}");
    expect(screen.getByRole("dialog")).toBeTruthy();
  });

  it("retries a broken image once through the media proxy, then shows a placeholder", async () => {
    const createObjectURL = vi.fn(() => "blob:proxied-1789");
    const revokeObjectURL = vi.fn();
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    allPosts = [makePost({ instagram_id: "1789", media_url: "http://cdn.test/expired.jpg" })];
    renderDashboard();
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(1));
    const tile = screen.getByTestId("post-tile");
    const img = () => tile.querySelector("img");
    expect(img()?.getAttribute("src")).toBe("http://cdn.test/expired.jpg");
    expect(img()?.getAttribute("loading")).toBe("lazy");
    expect(calls.some((c) => c.path.startsWith("/sync/instagram-media/"))).toBe(false);
    fireEvent.error(img() as HTMLImageElement);
    // Fetched through the API client (it carries the token), shown from an object URL.
    await waitFor(() => expect(img()?.getAttribute("src")).toBe("blob:proxied-1789"));
    expect(calls.filter((c) => c.path === "/sync/instagram-media/1789")).toHaveLength(1);
    fireEvent.error(img() as HTMLImageElement);
    expect(img()).toBeNull();
    expect(within(tile).getByTestId("image-placeholder")).toBeTruthy();
    expect(calls.filter((c) => c.path === "/sync/instagram-media/1789")).toHaveLength(1);
    // The object URL is released with the tile.
    cleanup();
    expect(revokeObjectURL).toHaveBeenCalledWith("blob:proxied-1789");
  });

  it("shows the placeholder when the media proxy fails too", async () => {
    allPosts = [makePost({ instagram_id: "404x", media_url: "http://cdn.test/gone.jpg" })];
    renderDashboard();
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(1));
    const tile = screen.getByTestId("post-tile");
    fireEvent.error(tile.querySelector("img") as HTMLImageElement);
    expect(await within(tile).findByTestId("image-placeholder")).toBeTruthy();
    expect(calls.filter((c) => c.path === "/sync/instagram-media/404x")).toHaveLength(1);
  });

  it("asks the media proxy once per post even when the tile mounts again", async () => {
    allPosts = [makePost({ instagram_id: "404y", media_url: "http://cdn.test/gone.jpg" })];
    renderDashboard();
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(1));
    fireEvent.error(screen.getByTestId("post-tile").querySelector("img") as HTMLImageElement);
    expect(await screen.findByTestId("image-placeholder")).toBeTruthy();
    // The grid shows other posts, then this one again: a fresh tile, the same failed proxy.
    allPosts = [makePost({ instagram_id: "other", media_url: "http://cdn.test/ok.jpg" })];
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() => expect(screen.queryByTestId("image-placeholder")).toBeNull());
    allPosts = [makePost({ instagram_id: "404y", media_url: "http://cdn.test/gone.jpg" })];
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() =>
      expect(screen.getByTestId("post-tile").querySelector("img")?.getAttribute("src")).toBe(
        "http://cdn.test/gone.jpg",
      ),
    );
    fireEvent.error(screen.getByTestId("post-tile").querySelector("img") as HTMLImageElement);
    expect(await screen.findByTestId("image-placeholder")).toBeTruthy();
    expect(calls.filter((c) => c.path === "/sync/instagram-media/404y")).toHaveLength(1);
  });

  it("shows the thumbnail first", async () => {
    allPosts = [
      makePost({
        media_type: "video",
        media_url: "http://cdn.test/v.mp4",
        thumbnail_url: "http://cdn.test/v.jpg",
      }),
    ];
    renderDashboard();
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(1));
    expect(screen.getByTestId("post-tile").querySelector("img")?.getAttribute("src")).toBe(
      "http://cdn.test/v.jpg",
    );
  });

  it("Refresh asks the server to refresh posts; a failure toasts the detail or 'Failed to refresh posts'", async () => {
    renderDashboard();
    await screen.findByText("No posts found");
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() =>
      expect(
        calls.some((c) => c.method === "POST" && c.path === "/sync/refresh-instagram-posts"),
      ).toBe(true),
    );
    refreshReply = [500, {}];
    await waitFor(() =>
      expect((screen.getByRole("button", { name: "Refresh" }) as HTMLButtonElement).disabled).toBe(
        false,
      ),
    );
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() => expect(toastError).toHaveBeenCalledWith("Failed to refresh posts"));
    refreshReply = [400, { detail: "Please connect your Google Drive account first" }];
    await waitFor(() =>
      expect((screen.getByRole("button", { name: "Refresh" }) as HTMLButtonElement).disabled).toBe(
        false,
      ),
    );
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() =>
      expect(toastError).toHaveBeenLastCalledWith("Please connect your Google Drive account first"),
    );
  });

  it("does not ask for the same page twice", async () => {
    allPosts = manyPosts(80);
    renderDashboard();
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(36));
    const nav = screen.getByRole("navigation", { name: "Posts pages" });
    await userEvent.click(within(nav).getByRole("button", { name: "Page 2" }));
    await waitFor(() => expect(postRequests().at(-1)).toMatchObject({ offset: 36 }));
    await userEvent.click(within(nav).getByRole("button", { name: "Page 1" }));
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(36));
    // Page 1 comes from the cache.
    expect(postRequests().map((p) => p.offset)).toEqual([0, 36]);
  });

  it("follows the account chosen in the accounts panel (pro/agency), from page 1", async () => {
    allPosts = manyPosts(100);
    renderDashboard("pro");
    const nav = await screen.findByRole("navigation", { name: "Posts pages" });
    await userEvent.click(within(nav).getByRole("button", { name: "Page 2" }));
    await waitFor(() => expect(postRequests().at(-1)).toMatchObject({ offset: 36 }));
    expect(postRequests().every((p) => p.account_id === undefined)).toBe(true);

    const panel = await screen.findByRole("article", { name: "@lumen.travel" });
    await userEvent.click(within(panel).getAllByRole("button")[0] as HTMLElement);
    await waitFor(() =>
      expect(postRequests().at(-1)).toMatchObject({
        account_id: "22222222-2222-4222-8222-222222222222",
        offset: 0,
      }),
    );
    await userEvent.click(screen.getByRole("button", { name: /All Accounts/ }));
    await waitFor(() =>
      expect(
        within(screen.getByRole("navigation", { name: "Posts pages" }))
          .getByRole("button", { name: "Page 1" })
          .getAttribute("aria-current"),
      ).toBe("page"),
    );
    expect(postRequests().filter((p) => p.account_id && p.offset !== 0)).toEqual([]);
  });
});
