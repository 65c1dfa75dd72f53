import type { Post } from "@keepsake/contracts";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { memo, useEffect, useState } from "react";
import { api } from "../../api/client.ts";
import { formatCount, formatDate } from "../../lib/format.ts";
import { mediaTypeLabel, postBadge } from "./post-badge.ts";
import "./post-tile.css";

/** SPEC §7: the media proxy used once when an image fails to load (under the /api base). */
export function mediaProxyPath(instagramId: string): string {
  return `/sync/instagram-media/${encodeURIComponent(instagramId)}`;
}

/** The picture shown first: the thumbnail when there is one, else the media itself. */
export function tileImageUrl(post: Pick<Post, "thumbnail_url" | "media_url">): string | null {
  return post.thumbnail_url || post.media_url || null;
}

/**
 * The proxy needs the bearer token, which an <img> cannot send: the picture is fetched
 * through the API client and shown from an object URL. One request per post, whatever
 * happens to the tile: a failure is not refetched when the tile mounts again, and a tile
 * that unmounts mid-request does not cancel it (the next mount reuses it).
 */
function useProxiedImage(instagramId: string, wanted: boolean) {
  const queryKey = ["media", instagramId];
  const failedBefore = useQueryClient().getQueryState(queryKey)?.status === "error";
  const media = useQuery({
    queryKey,
    queryFn: async () => {
      const { data } = await api.get<Blob>(mediaProxyPath(instagramId), {
        responseType: "blob",
      });
      return data;
    },
    enabled: wanted && !failedBefore,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!media.data) return;
    const objectUrl = URL.createObjectURL(media.data);
    setUrl(objectUrl);
    return () => {
      URL.revokeObjectURL(objectUrl);
      setUrl(null);
    };
  }, [media.data]);
  return { url, failed: media.isError };
}

type ImageStage = "original" | "proxy" | "broken";

/**
 * Lazy image: the stored URL, then once through the media proxy, then a placeholder. An item
 * imported from the export has no URL and Instagram has none to give: its placeholder says so.
 */
function TileImage({ post }: { post: Post }) {
  const first = tileImageUrl(post);
  const imported = post.source === "export";
  const [stage, setStage] = useState<ImageStage>(
    first ? "original" : imported ? "broken" : "proxy",
  );
  const proxied = useProxiedImage(post.instagram_id, stage === "proxy");
  if (stage === "broken" || (stage === "proxy" && proxied.failed)) {
    return (
      <div className="post-tile-placeholder" data-testid="image-placeholder">
        <span aria-hidden="true">{post.media_type === "video" ? "▶" : "🖼"}</span>
        <span>{imported ? "In your Drive" : "Preview unavailable"}</span>
      </div>
    );
  }
  const src = stage === "original" ? first : proxied.url;
  if (!src) return <span className="post-tile-image skeleton" aria-hidden="true" />;
  return (
    <img
      className="post-tile-image"
      src={src}
      alt=""
      loading="lazy"
      decoding="async"
      onError={() => setStage((s) => (s === "original" ? "proxy" : "broken"))}
    />
  );
}

interface PostTileProps {
  post: Post;
  onOpen: (post: Post, trigger: HTMLElement) => void;
  /** Opens the post's detail view (counts, their history, whether it is on Instagram). */
  onDetails?: (post: Post, trigger: HTMLElement) => void;
}

/** One grid tile: media-type label, backup badge, date and likes on hover or focus. */
export const PostTile = memo(function PostTile({ post, onOpen, onDetails }: PostTileProps) {
  const badge = postBadge(post);
  const type = mediaTypeLabel(post.media_type);
  const isStory = post.media_product_type === "story";
  const date = formatDate(post.timestamp);
  const likes = post.like_count;
  const gone = post.instagram_status === "gone";
  const caption = post.caption?.trim();
  const imported = post.source === "export";
  // An imported item has no media URL: its tile opens its details (caption, time, Drive).
  const action = imported
    ? "Open details"
    : post.media_type === "video"
      ? "Play video"
      : "Open image";
  return (
    <li
      className={`post-tile${isStory ? " post-tile-story" : ""}${gone ? " post-tile-gone" : ""}`}
      data-testid="post-tile"
      data-instagram-id={post.instagram_id}
    >
      <button
        type="button"
        className="post-tile-button"
        onClick={(e) => onOpen(post, e.currentTarget)}
        aria-label={`${action}: ${isStory ? "Story" : type} from ${date}${caption ? `, ${caption.slice(0, 80)}` : ""}`}
        title={post.not_backed_up_reason ?? undefined}
      >
        <TileImage key={post.instagram_id} post={post} />
        <span className="post-tile-labels">
          <span className="post-tile-type">{type}</span>
          {isStory && <span className="post-tile-type post-tile-story-label">Story</span>}
        </span>
        <span className={`post-tile-badge ${badge.className}`} data-badge={badge.kind}>
          {badge.label}
        </span>
        {imported && (
          <span className="post-tile-export-badge" data-testid="export-badge">
            From your export
          </span>
        )}
        {gone && (
          <span className="post-tile-gone-badge" data-testid="gone-badge">
            No longer on Instagram
          </span>
        )}
        {post.media_type === "video" && (
          <span className="post-tile-play" aria-hidden="true">
            ▶
          </span>
        )}
        <span className="post-tile-overlay" aria-hidden="true">
          <span>{date}</span>
          <span className="post-tile-counts">
            <span>♥ {likes === null ? "hidden" : formatCount(likes)}</span>
            {post.comments_count !== null && <span>💬 {formatCount(post.comments_count)}</span>}
            {post.view_count != null && <span>▶ {formatCount(post.view_count)}</span>}
          </span>
        </span>
      </button>
      {onDetails && !isStory && !imported && (
        <button
          type="button"
          className="post-tile-details"
          onClick={(e) => onDetails(post, e.currentTarget)}
          aria-label={`Details of the post from ${date}`}
          title="Counts and their history"
        >
          ⓘ
        </button>
      )}
    </li>
  );
});
