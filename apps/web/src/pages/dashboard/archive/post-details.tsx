import type { MetricsReading, Post } from "@keepsake/contracts";
import { useState } from "react";
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
import { Modal } from "../../../components/modal.tsx";
import { formatCount, formatDate, formatDateTime } from "../../../lib/format.ts";
import { PostComments } from "../post-comments.tsx";
import { tileImageUrl } from "../post-tile.tsx";
import { RestoreNote } from "./restore-note.tsx";
import "./export-badge.css";
import "./post-details.css";

const READING: Record<string, string> = {
  backup: "at backup",
  day_1: "1 day after posting",
  day_7: "7 days after posting",
  day_30: "30 days after posting",
  walk: "weekly check",
};

const DAY_MS = 86_400_000;

const kindOf = (post: Post) =>
  post.media_product_type === "story"
    ? "Story"
    : post.media_product_type === "reels"
      ? "Reel"
      : post.media_type === "carousel"
        ? "Album"
        : post.media_type === "video"
          ? "Video"
          : "Photo";

const count = (v: number | null | undefined, absent: string) =>
  v === null || v === undefined ? absent : formatCount(v);

/** The post's picture: its thumbnail, a placeholder when there is none or it no longer loads. */
function Thumbnail({ post }: { post: Post }) {
  const src = tileImageUrl(post);
  const [broken, setBroken] = useState(false);
  if (!src || broken) {
    return (
      <div className="post-details-thumb post-details-thumb-empty" data-testid="details-thumb">
        {post.source === "export" ? "From your export: the file is in your Drive" : "No preview"}
      </div>
    );
  }
  return (
    <img
      className="post-details-thumb"
      data-testid="details-thumb"
      src={src}
      alt=""
      onError={() => setBroken(true)}
    />
  );
}

/** Every reading as a point in time: likes, comments and views (when Instagram gives them). */
function HistoryChart({ readings }: { readings: MetricsReading[] }) {
  const points = readings.map((m) => ({
    t: new Date(m.at).getTime(),
    reading: READING[m.reason] ?? m.reason,
    Likes: m.likes,
    Comments: m.comments,
    Views: m.views,
  }));
  const first = points[0]?.t ?? 0;
  const last = points[points.length - 1]?.t ?? 0;
  // One reading still has an axis around it (a day either side).
  const domain = first === last ? [first - DAY_MS, last + DAY_MS] : [first, last];
  const hasViews = points.some((p) => p.Views !== null);
  const line = { type: "monotone", connectNulls: true, isAnimationActive: false } as const;
  return (
    <ResponsiveContainer width="100%" height={220}>
      <LineChart data={points} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="#333" />
        <XAxis
          dataKey="t"
          type="number"
          scale="time"
          domain={domain}
          tickFormatter={(v: number) => formatDate(new Date(v).toISOString())}
          stroke="#999"
          fontSize={12}
        />
        <YAxis stroke="#999" fontSize={12} />
        <Tooltip
          labelFormatter={(label, items) =>
            `${formatDateTime(new Date(Number(label)).toISOString())} (${(items?.[0]?.payload as { reading?: string } | undefined)?.reading ?? ""})`
          }
        />
        <Legend />
        <Line {...line} className="history-likes" dataKey="Likes" stroke="#e1306c" />
        <Line {...line} className="history-comments" dataKey="Comments" stroke="#4f8cff" />
        {hasViews && <Line {...line} className="history-views" dataKey="Views" stroke="#3ecf8e" />}
      </LineChart>
    </ResponsiveContainer>
  );
}

/**
 * A post's detail view (issues 30 and 36), on the shared modal (focus stays inside, Escape
 * closes, focus goes back to what opened it): its picture, caption and link to Instagram, its
 * counts (its latest reading: the chart's last point), every reading as a chart and a table,
 * whether it is still on Instagram, and the comments kept for it. Loaded on demand with the
 * chart library (never from shared code).
 */
export default function PostDetails({ post, onClose }: { post: Post; onClose: () => void }) {
  const imported = post.source === "export";
  const history = usePostHistory(post.account_id, post.instagram_id, !imported);
  const readings = history.data?.metrics ?? [];
  const latest = readings[readings.length - 1];
  // The header says what the last reading says (the grid's counts are that reading too).
  const likes = latest ? latest.likes : post.like_count;
  const comments = latest ? latest.comments : post.comments_count;
  const views = latest ? latest.views : post.view_count;
  const countedAt = latest?.at ?? post.counted_at ?? null;
  const gone = (history.data?.gone_detected_at ?? post.gone_detected_at) != null;
  return (
    <Modal
      title={`${kindOf(post)} from ${formatDate(post.timestamp)}`}
      onClose={onClose}
      className="post-details-modal"
      actions={
        <>
          {post.permalink && !gone && !imported && (
            <a href={post.permalink} target="_blank" rel="noreferrer" className="btn btn-ghost">
              Open on Instagram
            </a>
          )}
          <button type="button" className="btn btn-secondary" onClick={onClose} data-autofocus>
            Close
          </button>
        </>
      }
    >
      <div className="post-details-body" data-testid="post-details">
        <div className="post-details-post">
          <Thumbnail post={post} />
          <div>
            {imported && (
              <p>
                <span className="post-export-badge" data-testid="export-badge">
                  From your export
                </span>
              </p>
            )}
            <p className="post-details-caption" data-testid="details-caption">
              {post.caption?.trim() || "No caption"}
            </p>
          </div>
        </div>
        <RestoreNote
          goneDetectedAt={history.data?.gone_detected_at ?? post.gone_detected_at}
          restoreUntil={history.data?.restore_until ?? post.restore_until}
        />
        <dl className="post-details-counts" data-testid="details-counts">
          <div>
            <dt>Likes</dt>
            <dd data-testid="details-likes">{count(likes, "Hidden")}</dd>
          </div>
          <div>
            <dt>Comments</dt>
            <dd data-testid="details-comments">{count(comments, "-")}</dd>
          </div>
          <div>
            <dt>Views</dt>
            <dd data-testid="details-views">{count(views, "-")}</dd>
          </div>
        </dl>
        {countedAt && <p className="muted">Counted {formatDateTime(countedAt)}.</p>}
        {imported ? (
          <p className="muted">
            Imported from your Instagram data export: Instagram gives no counts for it.
          </p>
        ) : history.isPending ? (
          <p className="muted">Loading its history...</p>
        ) : history.isLoadingError ? (
          <p role="alert">Failed to load its history</p>
        ) : readings.length === 0 ? (
          <p className="muted">No readings yet: they start with the post's backup.</p>
        ) : (
          <figure
            className="post-details-chart"
            aria-label="Engagement over time"
            data-testid="history-chart"
            data-readings={readings.length}
          >
            <HistoryChart readings={readings} />
            <figcaption className="muted">
              {readings.length} reading{readings.length === 1 ? "" : "s"}: at backup, about 1, 7 and
              30 days after posting, and at the weekly checks when the counts changed.
            </figcaption>
            <div className="post-details-readings-wrap">
              <table className="post-details-readings" aria-label="Readings">
                <thead>
                  <tr>
                    <th scope="col">Read</th>
                    <th scope="col">Likes</th>
                    <th scope="col">Comments</th>
                    <th scope="col">Views</th>
                  </tr>
                </thead>
                <tbody>
                  {[...readings].reverse().map((m) => (
                    <tr key={m.at}>
                      <td>
                        {formatDateTime(m.at)} ({READING[m.reason] ?? m.reason})
                      </td>
                      <td>{count(m.likes, "Hidden")}</td>
                      <td>{count(m.comments, "-")}</td>
                      <td>{count(m.views, "-")}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </figure>
        )}
        {!imported && <PostComments postId={post.id} />}
      </div>
    </Modal>
  );
}
