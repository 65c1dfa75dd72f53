import type { Backup } from "@keepsake/contracts";
import { DESTINATION_LABELS } from "@keepsake/contracts/destination-kinds";
import { syncMessages } from "@keepsake/contracts/sync-messages";
import { useState } from "react";
import { BusyButton } from "../../components/busy-button.tsx";
import { DataTable } from "../../components/data-table.tsx";
import { formatBytes, formatDate } from "../../lib/format.ts";
import { RestoreNote } from "../dashboard/archive/restore-note.tsx";
import "../dashboard/archive/export-badge.css";

const STATUS_BADGE: Record<Backup["status"], string> = {
  completed: "badge badge-success",
  failed: "badge badge-danger",
  processing: "badge badge-warning",
  pending: "badge",
  unavailable: "badge",
};

/** What the status cell says: the status, or for media Instagram withholds, in words. */
const STATUS_LABEL: Partial<Record<Backup["status"], string>> = {
  unavailable: "not available from Instagram",
};

const BACKUP_COLUMNS = ["Post", "Status", "Size", "Backup Date", "Actions"] as const;

/** SPEC §2: backups recorded as a duplicate of a file already in Drive are not listed. */
export function visibleBackups(backups: Backup[]): Backup[] {
  return backups.filter((b) => !b.error_message?.includes(syncMessages.skippedDuplicate));
}

function Thumbnail({ backup }: { backup: Backup }) {
  const post = backup.instagram_post;
  const src = post.thumbnail_url || post.media_url;
  const [broken, setBroken] = useState(false);
  if (!src || broken) {
    return (
      <span className="backup-thumb backup-thumb-empty" aria-hidden="true">
        {post.media_type === "video" ? "▶" : "🖼"}
      </span>
    );
  }
  return (
    <img
      className="backup-thumb"
      src={src}
      alt=""
      loading="lazy"
      decoding="async"
      onError={() => setBroken(true)}
    />
  );
}

export function BackupsTable({
  backups,
  onRetry,
  retrying,
}: {
  backups: Backup[];
  onRetry: (backup: Backup) => void;
  /** Post ids whose retry is being sent. */
  retrying: ReadonlySet<string>;
}) {
  return (
    <DataTable className="backups-table stack-narrow" columns={BACKUP_COLUMNS}>
      {backups.map((b) => {
        const post = b.instagram_post;
        const date = b.completed_at ?? b.created_at;
        return (
          <tr key={b.id} data-testid="backup-row" data-status={b.status}>
            <td>
              <div className="backup-post">
                <Thumbnail backup={b} />
                <div className="backup-post-text">
                  <p className="backup-caption" title={post.caption ?? undefined}>
                    {post.caption?.trim() || "No caption"}
                  </p>
                  <p className="backup-meta">
                    {post.media_product_type === "story"
                      ? "Story"
                      : post.media_product_type === "reels"
                        ? "Reel"
                        : post.media_type === "carousel"
                          ? `Album · ${post.children_count} items`
                          : post.media_type === "video"
                            ? "Video"
                            : "Photo"}{" "}
                    · {formatDate(post.timestamp)}
                  </p>
                  {post.source === "export" && (
                    <span className="post-export-badge" data-testid="export-badge">
                      From your export
                    </span>
                  )}
                  {post.instagram_status === "gone" && (
                    <>
                      <span className="post-gone-badge" data-testid="gone-badge">
                        No longer on Instagram
                      </span>
                      <RestoreNote
                        goneDetectedAt={post.gone_detected_at}
                        restoreUntil={post.restore_until}
                      />
                    </>
                  )}
                </div>
              </div>
            </td>
            <td data-label="Status">
              <div className="backup-status">
                <span className={STATUS_BADGE[b.status]}>{STATUS_LABEL[b.status] ?? b.status}</span>
                {b.error_message && b.status !== "completed" && (
                  <p className="backup-error">{b.error_message}</p>
                )}
                <p className="backup-destination" data-testid="backup-destination">
                  {b.status === "completed" || b.status === "unavailable" ? "In " : "To "}
                  {DESTINATION_LABELS[b.destination]}
                </p>
              </div>
            </td>
            <td className="backup-nowrap" data-label="Size">
              {b.backup_size_bytes ? formatBytes(b.backup_size_bytes) : "-"}
            </td>
            <td className="backup-nowrap" data-label="Backup Date">
              {b.status === "completed" ? formatDate(date) : "-"}
            </td>
            <td className="backup-actions-cell">
              <div className="backup-actions">
                {b.google_drive_url && (
                  <a
                    className="btn btn-ghost btn-sm"
                    href={b.google_drive_url}
                    target="_blank"
                    rel="noopener noreferrer"
                  >
                    View
                  </a>
                )}
                {b.status === "failed" && (
                  <BusyButton
                    busy={retrying.has(b.instagram_post_id)}
                    busyLabel="Retrying..."
                    onClick={() => onRetry(b)}
                  >
                    Retry
                  </BusyButton>
                )}
              </div>
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
