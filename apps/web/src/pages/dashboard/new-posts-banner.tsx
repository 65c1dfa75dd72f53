import type { NewPostsCheck } from "@keepsake/contracts";
import { BusyButton } from "../../components/busy-button.tsx";
import { Link } from "../../lib/navigation.tsx";

export const DEFAULT_UPGRADE_MESSAGE =
  "Upgrade to Premium for automatic backups every 10 minutes, so new posts are saved without you lifting a finger.";

/** True when the check reports new or not-yet-backed-up posts. */
export function hasNewOrUnbacked(check: NewPostsCheck | undefined): boolean {
  return (
    !!check && (check.has_new_posts || check.new_posts_count > 0 || check.unbacked_posts_count > 0)
  );
}

function summary(check: NewPostsCheck, driveMissing: boolean): string {
  // Nothing is read into Keepsake before Drive is connected: the posts are on Instagram only.
  if (driveMissing && check.new_posts_count > 0) {
    return `${check.new_posts_count.toLocaleString("en-US")} post${check.new_posts_count === 1 ? "" : "s"} on Instagram ${check.new_posts_count === 1 ? "waits" : "wait"} for ${check.new_posts_count === 1 ? "its" : "their"} first backup.`;
  }
  const parts: string[] = [];
  if (check.new_posts_count > 0)
    parts.push(`${check.new_posts_count} new post${check.new_posts_count === 1 ? "" : "s"}`);
  // The dashboard's Pending plus its failed backups (one definition on the server, issue 36).
  const failed = check.failed_backups_count ?? 0;
  if (check.unbacked_posts_count > 0)
    parts.push(
      `${check.unbacked_posts_count} post${check.unbacked_posts_count === 1 ? "" : "s"} not backed up yet${failed > 0 ? ` (${failed} failed)` : ""}`,
    );
  return parts.length > 0 ? `You have ${parts.join(" and ")}.` : "You have new posts to back up.";
}

interface NewPostsBannerProps {
  check: NewPostsCheck;
  onCheckAgain: () => void;
  checking: boolean;
  onBackupNow: () => void;
  backupBusy: boolean;
  /** Google Drive is not connected (or its access ended): nothing can be backed up yet. */
  driveMissing?: boolean;
  /** Drive was connected and its access ended: it needs reconnecting, not connecting. */
  driveNeedsReconnect?: boolean;
  /**
   * The accounts' storage when it is not Google Drive ("Dropbox", "OneDrive", "S3 storage"):
   * `driveMissing` and `driveNeedsReconnect` then speak of it.
   */
  storageLabel?: string | undefined;
}

/** SPEC §2 free-user banner. */
export function NewPostsBanner({
  check,
  onCheckAgain,
  checking,
  onBackupNow,
  backupBusy,
  driveMissing = false,
  driveNeedsReconnect = false,
  storageLabel,
}: NewPostsBannerProps) {
  return (
    <section className="banner banner-info new-posts-banner" aria-label="New posts">
      <div className="banner-body">
        <p className="banner-title">{summary(check, driveMissing)}</p>
        {driveMissing && storageLabel !== undefined && (
          <p>
            {driveNeedsReconnect
              ? `Keepsake's access to your ${storageLabel} ended, so nothing can be backed up. `
              : `Backups are saved to your ${storageLabel}, and your posts appear below as they are backed up. `}
            <Link to="/settings?tab=connections">
              {driveNeedsReconnect ? "Reconnect" : "Connect"} {storageLabel}
            </Link>{" "}
            {driveNeedsReconnect ? "to resume." : "first."}
          </p>
        )}
        {driveMissing &&
          storageLabel === undefined &&
          (driveNeedsReconnect ? (
            <p>
              Keepsake's access to your Google Drive ended, so nothing can be backed up.{" "}
              <Link to="/settings?tab=connections">Reconnect Google Drive</Link> to resume.
            </p>
          ) : (
            <p>
              Backups are saved to your Google Drive, and your posts appear below as they are backed
              up. <Link to="/settings">Connect Google Drive</Link> first.
            </p>
          ))}
        <p>{check.upgrade_message || DEFAULT_UPGRADE_MESSAGE}</p>
        <p className="banner-note">
          New posts may take 5-15 minutes to appear after you publish them.
        </p>
      </div>
      <div className="banner-actions">
        <BusyButton busy={checking} busyLabel="Checking..." onClick={onCheckAgain}>
          Check Again
        </BusyButton>
        <Link to="/pricing" className="btn btn-secondary btn-sm">
          Upgrade Now
        </Link>
        <button
          type="button"
          className="btn btn-primary btn-sm"
          onClick={onBackupNow}
          disabled={backupBusy}
        >
          Backup Now
        </button>
      </div>
    </section>
  );
}
