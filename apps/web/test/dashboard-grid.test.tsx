import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactElement } from "react";
import { describe, expect, it, vi } from "vitest";
import { makePost } from "./fake-api.ts";
import {
  dash,
  expectPostsPage,
  manyPosts,
  postRequests,
  renderDashboard,
  toastError,
  withDashboardApi,
} from "./support/dashboard.tsx";

withDashboardApi();

describe("content grid", () => {
  it("marks posts no longer on Instagram, shows their counts, and filters them", async () => {
    dash.allPosts = manyPosts(10, (i) =>
      i === 3
        ? {
            instagram_status: "gone",
            gone_detected_at: "2026-11-20T10:00:00.000Z",
            restore_until: "2026-12-18T10:00:00.000Z",
          }
        : { instagram_status: "on_instagram", view_count: 1234, like_count: 56, comments_count: 7 },
    );
    renderDashboard();
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(10));
    expect(screen.getAllByTestId("gone-badge")).toHaveLength(1);
    const tile = screen.getAllByTestId("post-tile")[0]!;
    expect(tile.textContent).toContain("♥ 56");
    expect(tile.textContent).toContain("💬 7");
    expect(tile.textContent).toContain("▶ 1,234");

    await userEvent.selectOptions(
      screen.getByRole("combobox", { name: "Post type" }),
      "No longer on Instagram",
    );
    await waitFor(() =>
      expect(postRequests().at(-1)).toMatchObject({ instagram_status: "gone", offset: 0 }),
    );
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(1));
    expect(postRequests().at(-1)?.media_type).toBeUndefined();
  });

  it("pages 36 at a time with at most 7 page buttons", async () => {
    dash.allPosts = manyPosts(400);
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
    dash.allPosts = manyPosts(200);
    dash.searchCap = 72;
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
    dash.allPosts = manyPosts(100, (i) => ({ media_type: i % 2 === 0 ? "image" : "video" }));
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
    await expectPostsPage(1);
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
    dash.postsFail = true;
    renderDashboard();
    expect(await screen.findByText("Failed to load posts")).toBeTruthy();
    dash.postsFail = false;
    dash.allPosts = manyPosts(2);
    await userEvent.click(screen.getByRole("button", { name: "Try Again" }));
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(2));
  });

  it("labels tiles by type, shows the badge, the date and likes, and marks stories", async () => {
    dash.allPosts = [
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
    dash.allPosts = [makePost({ media_type: "image", media_url: "http://cdn.test/full.jpg" })];
    renderDashboard();
    const tile = await screen.findByRole("button", { name: /^Open image/ });
    await userEvent.click(tile);
    expect(open).toHaveBeenCalledWith("http://cdn.test/full.jpg", "_blank", "noopener,noreferrer");
    expect(screen.queryByRole("dialog")).toBeNull();
    open.mockRestore();
  });

  it("plays a video in a modal with a focus trap; Escape closes and focus returns", async () => {
    dash.allPosts = [
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
    dash.allPosts = [makePost({ media_type: "video" })];
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
    dash.allPosts = [makePost({ instagram_id: "1789", media_url: "http://cdn.test/expired.jpg" })];
    renderDashboard();
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(1));
    const tile = screen.getByTestId("post-tile");
    const img = () => tile.querySelector("img");
    expect(img()?.getAttribute("src")).toBe("http://cdn.test/expired.jpg");
    expect(img()?.getAttribute("loading")).toBe("lazy");
    expect(dash.calls.some((c) => c.path.startsWith("/sync/instagram-media/"))).toBe(false);
    fireEvent.error(img() as HTMLImageElement);
    // Fetched through the API client (it carries the token), shown from an object URL.
    await waitFor(() => expect(img()?.getAttribute("src")).toBe("blob:proxied-1789"));
    expect(dash.calls.filter((c) => c.path === "/sync/instagram-media/1789")).toHaveLength(1);
    fireEvent.error(img() as HTMLImageElement);
    expect(img()).toBeNull();
    expect(within(tile).getByTestId("image-placeholder")).toBeTruthy();
    expect(dash.calls.filter((c) => c.path === "/sync/instagram-media/1789")).toHaveLength(1);
    // The object URL is released with the tile.
    cleanup();
    expect(revokeObjectURL).toHaveBeenCalledWith("blob:proxied-1789");
  });

  it("shows the placeholder when the media proxy fails too", async () => {
    dash.allPosts = [makePost({ instagram_id: "404x", media_url: "http://cdn.test/gone.jpg" })];
    renderDashboard();
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(1));
    const tile = screen.getByTestId("post-tile");
    fireEvent.error(tile.querySelector("img") as HTMLImageElement);
    expect(await within(tile).findByTestId("image-placeholder")).toBeTruthy();
    expect(dash.calls.filter((c) => c.path === "/sync/instagram-media/404x")).toHaveLength(1);
  });

  it("asks the media proxy once per post even when the tile mounts again", async () => {
    dash.allPosts = [makePost({ instagram_id: "404y", media_url: "http://cdn.test/gone.jpg" })];
    renderDashboard();
    await waitFor(() => expect(screen.getAllByTestId("post-tile")).toHaveLength(1));
    fireEvent.error(screen.getByTestId("post-tile").querySelector("img") as HTMLImageElement);
    expect(await screen.findByTestId("image-placeholder")).toBeTruthy();
    // The grid shows other posts, then this one again: a fresh tile, the same failed proxy.
    dash.allPosts = [makePost({ instagram_id: "other", media_url: "http://cdn.test/ok.jpg" })];
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() => expect(screen.queryByTestId("image-placeholder")).toBeNull());
    dash.allPosts = [makePost({ instagram_id: "404y", media_url: "http://cdn.test/gone.jpg" })];
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() =>
      expect(screen.getByTestId("post-tile").querySelector("img")?.getAttribute("src")).toBe(
        "http://cdn.test/gone.jpg",
      ),
    );
    fireEvent.error(screen.getByTestId("post-tile").querySelector("img") as HTMLImageElement);
    expect(await screen.findByTestId("image-placeholder")).toBeTruthy();
    expect(dash.calls.filter((c) => c.path === "/sync/instagram-media/404y")).toHaveLength(1);
  });

  it("shows the thumbnail first", async () => {
    dash.allPosts = [
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
        dash.calls.some((c) => c.method === "POST" && c.path === "/sync/refresh-instagram-posts"),
      ).toBe(true),
    );
    dash.refreshReply = [500, {}];
    await waitFor(() =>
      expect((screen.getByRole("button", { name: "Refresh" }) as HTMLButtonElement).disabled).toBe(
        false,
      ),
    );
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    await waitFor(() => expect(toastError).toHaveBeenCalledWith("Failed to refresh posts"));
    dash.refreshReply = [400, { detail: "Please connect your Google Drive account first" }];
    await waitFor(() =>
      expect((screen.getByRole("button", { name: "Refresh" }) as HTMLButtonElement).disabled).toBe(
        false,
      ),
    );
    await userEvent.click(screen.getByRole("button", { name: "Refresh" }));
    // Issue 36: a "connect first" answer is toasted with the link to where it is done.
    await waitFor(() => expect(toastError.mock.calls.length).toBeGreaterThan(1));
    const shown = render(toastError.mock.lastCall?.[0] as ReactElement);
    expect(shown.container.textContent).toContain("Please connect your Google Drive account first");
    expect(shown.container.querySelector("a")?.getAttribute("href")).toBe(
      "/settings?tab=connections",
    );
    shown.unmount();
  });

  it("does not ask for the same page twice", async () => {
    dash.allPosts = manyPosts(80);
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
    dash.allPosts = manyPosts(100);
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
    await expectPostsPage(1);
    expect(postRequests().filter((p) => p.account_id && p.offset !== 0)).toEqual([]);
  });
});
