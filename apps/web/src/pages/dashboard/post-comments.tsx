import type { ArchivedComment } from "@keepsake/contracts";
import { usePostComments } from "../../api/comments.ts";
import { formatDate } from "../../lib/format.ts";
import "./comments.css";

function One({ c, reply = false }: { c: Omit<ArchivedComment, "replies">; reply?: boolean }) {
  return (
    <div className={`post-comment${reply ? " post-comment-reply" : ""}`} data-testid="post-comment">
      <span className="post-comment-author">@{c.username ?? "someone"}</span>{" "}
      <span className="post-comment-text">{c.text}</span>
      <span className="post-comment-meta muted">
        {" "}
        · {formatDate(c.timestamp)}
        {c.removed_at && (
          <span className="badge badge-warning post-comment-removed">
            Removed on Instagram {formatDate(c.removed_at)}
          </span>
        )}
      </span>
    </div>
  );
}

/**
 * The post's comments as Keepsake keeps them (issue 30): threads with their replies; those
 * removed on Instagram stay, marked. Nothing shows for accounts that do not keep comments.
 */
export function PostComments({ postId }: { postId: string }) {
  const comments = usePostComments(postId);
  const data = comments.data;
  if (!data || (!data.enabled && data.comments.length === 0)) return null;
  return (
    <section className="post-comments" aria-label="Comments">
      <h3 className="post-comments-title">Comments ({data.comments.length})</h3>
      {data.comments.length === 0 ? (
        <p className="muted">
          {data.last_read_at ? "No comments." : "Comments are read after the post's backup."}
        </p>
      ) : (
        <ul className="post-comments-list">
          {data.comments.map((c) => (
            <li key={c.id}>
              <One c={c} />
              {c.replies.map((r) => (
                <One key={r.id} c={r} reply />
              ))}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
