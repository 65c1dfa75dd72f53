import type { Post, PostMediaType } from "@keepsake/contracts";
import { lazy, type ReactNode, Suspense, useCallback, useId, useState } from "react";
import { usePosts, useRefreshInstagramPosts } from "../../api/sync.ts";
import { BusyButton } from "../../components/busy-button.tsx";
import { SearchField } from "../../components/form-field.tsx";
import { Pagination } from "../../components/pagination.tsx";
import { formatCount } from "../../lib/format.ts";
import { Link } from "../../lib/navigation.tsx";
import { POSTS_PAGE_SIZE, pageCount } from "../../lib/pagination.ts";
import { useDebouncedValue } from "../../lib/use-debounced-value.ts";
import { usePaging } from "../../lib/use-paging.ts";
import { PostTile } from "./post-tile.tsx";
import { VideoModal } from "./video-modal.tsx";

export type MediaFilter = "all" | Extract<PostMediaType, "image" | "video"> | "gone";

const FILTERS: { value: MediaFilter; label: string }[] = [
  { value: "all", label: "All Posts" },
  { value: "image", label: "Photos Only" },
  { value: "video", label: "Videos Only" },
  { value: "gone", label: "No longer on Instagram" },
];

// The detail view brings the chart library: loaded when a post's details are opened.
const PostDetails = lazy(() => import("./archive/post-details.tsx"));

/** Typing settles for this long before the search is sent, so keystrokes do not each query. */
export const SEARCH_DEBOUNCE_MS = 300;
const LIVE_REFRESH_MS = 5_000;

interface ContentGridProps {
  /** The selected account (pro/agency), or undefined for All Accounts. */
  accountId: string | undefined;
  /** Backups are under way: the visible page refreshes so badges follow them. */
  live?: boolean;
  /**
   * Google Drive is not connected yet, so no post has been read into Keepsake: the empty grid
   * says why, and how many posts wait on Instagram when that is known.
   */
  /** `reconnect`: Drive was connected and its access ended (Reconnect, not Connect). */
  /** `label`: the accounts' storage when it is not Google Drive ("Dropbox"…). */
  awaitingDrive?:
    | { onInstagram: number | null; reconnect?: boolean; label?: string | undefined }
    | undefined;
}

/** SPEC §2 "Your Instagram Content": search, type filter, Refresh, tiles, pagination. */
export function ContentGrid({ accountId, live = false, awaitingDrive }: ContentGridProps) {
  const [searchInput, setSearchInput] = useState("");
  const [filter, setFilter] = useState<MediaFilter>("all");
  const [playing, setPlaying] = useState<{ post: Post; trigger: HTMLElement } | null>(null);
  const [details, setDetails] = useState<{ post: Post; trigger: HTMLElement } | null>(null);
  const search = useDebouncedValue(searchInput.trim(), SEARCH_DEBOUNCE_MS);
  const searchId = useId();
  const filterId = useId();

  // SPEC §4: a change of search, filter (or account) starts again at page 1.
  const [page, setPage] = usePaging(JSON.stringify([search, filter, accountId ?? null]));

  const query = {
    limit: POSTS_PAGE_SIZE,
    offset: (page - 1) * POSTS_PAGE_SIZE,
    media_type: filter === "all" || filter === "gone" ? undefined : filter,
    instagram_status: filter === "gone" ? ("gone" as const) : undefined,
    search: search || undefined,
    account_id: accountId,
  };
  const posts = usePosts(query, { refetchInterval: live ? LIVE_REFRESH_MS : false });
  const refresh = useRefreshInstagramPosts();
  const data = posts.data;
  const total = data?.total ?? 0;
  // A search that matched many posts counts only so far: "180+ posts", and Next goes on.
  const exact = data?.total_exact ?? true;
  const totalPages = pageCount(total, POSTS_PAGE_SIZE, exact);

  const openPost = useCallback((post: Post, trigger: HTMLElement) => {
    // SPEC §2: a video plays in the modal, an image opens its media URL in a new tab; every
    // post's detail view (counts, history, comments) is its ⓘ button. An item imported from
    // the export has no media URL: its tile opens its details.
    if (post.source === "export") {
      setDetails({ post, trigger });
      return;
    }
    if (post.media_type === "video") {
      setPlaying({ post, trigger });
      return;
    }
    if (post.media_url) window.open(post.media_url, "_blank", "noopener,noreferrer");
  }, []);

  const openDetails = useCallback((post: Post, trigger: HTMLElement) => {
    setDetails({ post, trigger });
  }, []);
  const closeDetails = useCallback(() => {
    setDetails((current) => {
      current?.trigger.focus();
      return null;
    });
  }, []);

  const closeModal = useCallback(() => {
    setPlaying((current) => {
      current?.trigger.focus();
      return null;
    });
  }, []);

  const isSearching = search !== "";
  let body: ReactNode;
  if (posts.isPending) {
    body = (
      <ul className="post-grid" aria-hidden="true" data-testid="posts-skeleton">
        {Array.from({ length: 12 }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
          <li key={i} className="post-tile skeleton" />
        ))}
      </ul>
    );
  } else if (posts.isError && !data) {
    body = (
      <div className="grid-empty" role="alert">
        <p className="grid-empty-title">Failed to load posts</p>
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => posts.refetch()}>
          Try Again
        </button>
      </div>
    );
  } else if ((!data || data.posts.length === 0) && awaitingDrive && !isSearching) {
    const n = awaitingDrive.onInstagram;
    const storage = awaitingDrive.label ?? "Google Drive";
    body = (
      <div className="grid-empty" data-testid="awaiting-drive">
        <p className="grid-empty-title">No posts backed up yet</p>
        <p className="muted">
          {n
            ? `Your ${formatCount(n)} Instagram post${n === 1 ? "" : "s"} appear${n === 1 ? "s" : ""} here as ${n === 1 ? "it is" : "they are"} backed up.`
            : "Your Instagram posts appear here as they are backed up."}{" "}
          {awaitingDrive.reconnect
            ? `Reconnect ${storage} to resume backups.`
            : `Connect ${storage} to start the first backup.`}
        </p>
        <Link to="/settings" className="btn btn-primary btn-sm">
          {awaitingDrive.reconnect ? `Reconnect ${storage}` : `Connect ${storage}`}
        </Link>
      </div>
    );
  } else if (!data || data.posts.length === 0) {
    body = (
      <div className="grid-empty">
        <p className="grid-empty-title">No posts found</p>
        {isSearching && <p className="muted">Try a different search term</p>}
        {filter === "gone" && !isSearching && (
          <p className="muted">Every backed-up post is still on Instagram.</p>
        )}
      </div>
    );
  } else {
    body = (
      <ul className="post-grid" aria-busy={posts.isFetching}>
        {data.posts.map((post) => (
          <PostTile key={post.id} post={post} onOpen={openPost} onDetails={openDetails} />
        ))}
      </ul>
    );
  }

  return (
    <section className="card content-section" aria-labelledby="content-heading">
      <div className="content-head">
        <h2 id="content-heading" className="section-title">
          Your Instagram Content
        </h2>
        {data && (
          <span
            className="muted content-count"
            title={exact ? undefined : `At least ${formatCount(total)} posts match`}
          >
            {formatCount(total)}
            {exact ? "" : "+"} posts
          </span>
        )}
      </div>
      <div className="content-toolbar">
        <SearchField
          id={searchId}
          label="Search posts"
          className="content-search"
          placeholder="Search posts..."
          value={searchInput}
          onChange={(e) => setSearchInput(e.target.value)}
        />
        <label htmlFor={filterId} className="visually-hidden">
          Post type
        </label>
        <select
          id={filterId}
          className="input content-filter"
          value={filter}
          onChange={(e) => setFilter(e.target.value as MediaFilter)}
        >
          {FILTERS.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </select>
        <BusyButton
          busy={refresh.isPending}
          busyLabel="Refreshing..."
          onClick={() => refresh.mutate()}
        >
          Refresh
        </BusyButton>
      </div>
      {body}
      <Pagination page={page} totalPages={totalPages} onChange={setPage} label="Posts pages" />
      {playing && <VideoModal post={playing.post} onClose={closeModal} />}
      {details && (
        <Suspense fallback={null}>
          <PostDetails post={details.post} onClose={closeDetails} />
        </Suspense>
      )}
    </section>
  );
}
