import type { Post } from "@keepsake/contracts";
import { type KeyboardEvent, useEffect, useId, useRef } from "react";
import { createPortal } from "react-dom";
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { usePostHistory } from "../../../api/archive.ts";
import { formatCount, formatDate } from "../../../lib/format.ts";
import { PostComments } from "../post-comments.tsx";
import { RestoreNote } from "./restore-note.tsx";

const READING: Record<string, string> = {
  backup: "at backup",
  day_1: "1 day after posting",
  day_7: "7 days after posting",
  day_30: "30 days after posting",
  walk: "weekly check",
};

/**
 * A post's detail view (issue 30): its counts, a small chart of their history, whether it is
 * still on Instagram, and the comments kept for it. Loaded on demand with the chart library (never from shared code).
 */
export default function PostDetails({ post, onClose }: { post: Post; onClose: () => void }) {
  const history = usePostHistory(post.account_id, post.instagram_id);
  const closeButton = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  useEffect(() => closeButton.current?.focus(), []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape") onClose();
  };
  const points = (history.data?.metrics ?? []).map((m) => ({
    date: formatDate(m.at),
    reading: READING[m.reason] ?? m.reason,
    Likes: m.likes,
    Comments: m.comments,
    Views: m.views,
  }));
  const hasViews = points.some((p) => p.Views !== null);
  return createPortal(
    // biome-ignore lint/a11y/noStaticElementInteractions: the backdrop closes on click; Escape is handled by the dialog
    <div
      className="backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div
        className="post-details"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={onKeyDown}
      >
        <div className="video-modal-header">
          <h2 id={titleId} className="video-modal-title">
            Post from {formatDate(post.timestamp)}
          </h2>
          <button
            ref={closeButton}
            type="button"
            className="btn btn-ghost btn-sm modal-close"
            onClick={onClose}
            aria-label="Close"
          >
            ✕
          </button>
        </div>
        <RestoreNote
          goneDetectedAt={history.data?.gone_detected_at ?? post.gone_detected_at}
          restoreUntil={history.data?.restore_until ?? post.restore_until}
        />
        <dl className="post-details-counts">
          <div>
            <dt>Likes</dt>
            <dd>{post.like_count === null ? "Hidden" : formatCount(post.like_count)}</dd>
          </div>
          <div>
            <dt>Comments</dt>
            <dd>{post.comments_count === null ? "-" : formatCount(post.comments_count)}</dd>
          </div>
          <div>
            <dt>Views</dt>
            <dd>{post.view_count == null ? "-" : formatCount(post.view_count)}</dd>
          </div>
        </dl>
        {history.isPending ? (
          <p className="muted">Loading its history...</p>
        ) : points.length === 0 ? (
          <p className="muted">No readings yet: they start with the post's backup.</p>
        ) : (
          <figure className="post-details-chart" aria-label="Engagement over time">
            <ResponsiveContainer width="100%" height={200}>
              <LineChart data={points} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="#333" />
                <XAxis dataKey="date" stroke="#999" fontSize={12} />
                <YAxis stroke="#999" fontSize={12} />
                <Tooltip
                  labelFormatter={(label, items) =>
                    `${label} (${(items?.[0]?.payload as { reading?: string } | undefined)?.reading ?? ""})`
                  }
                />
                <Legend />
                <Line type="monotone" dataKey="Likes" stroke="#e1306c" connectNulls />
                <Line type="monotone" dataKey="Comments" stroke="#4f8cff" connectNulls />
                {hasViews && <Line type="monotone" dataKey="Views" stroke="#3ecf8e" connectNulls />}
              </LineChart>
            </ResponsiveContainer>
            <figcaption className="muted">
              {points.length} reading{points.length === 1 ? "" : "s"}: at backup, about 1, 7 and 30
              days after posting, and at the weekly checks when the counts changed.
            </figcaption>
          </figure>
        )}
        <PostComments postId={post.id} />
        {post.permalink && post.instagram_status !== "gone" && (
          <a
            href={post.permalink}
            target="_blank"
            rel="noreferrer"
            className="btn btn-ghost btn-sm"
          >
            Open on Instagram
          </a>
        )}
      </div>
    </div>,
    document.body,
  );
}
