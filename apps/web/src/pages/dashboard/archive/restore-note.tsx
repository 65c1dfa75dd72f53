import { archiveMessages } from "@keepsake/contracts/archive-messages";
import { formatDate } from "../../../lib/format.ts";

/** What a post no longer on Instagram says: since when, and until when Instagram can restore it. */
export function RestoreNote({
  goneDetectedAt,
  restoreUntil,
}: {
  goneDetectedAt: string | null | undefined;
  restoreUntil: string | null | undefined;
}) {
  if (!goneDetectedAt) return null;
  const open = restoreUntil && new Date(restoreUntil).getTime() > Date.now();
  return (
    <div className="restore-note" data-testid="restore-note">
      <p>
        <strong>{archiveMessages.noLongerOnInstagram}</strong> since {formatDate(goneDetectedAt)}.
        Its backup stays in your Google Drive.
      </p>
      <p>
        {open && restoreUntil
          ? archiveMessages.restoreUntil(formatDate(restoreUntil))
          : archiveMessages.restoreWindowOver}
      </p>
    </div>
  );
}
