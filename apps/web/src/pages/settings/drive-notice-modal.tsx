import { ConfirmDialog } from "../../components/modal.tsx";

/** The exact wording of Google's Drive checkbox, so the user recognises it. */
export const DRIVE_PERMISSION_TEXT =
  "See, edit, create and delete only the specific Google Drive files you use with this app";

/** SPEC §2: before Google's consent screen, tell the user to tick the Drive permission. */
export function DriveNoticeModal({
  busy,
  onCancel,
  onContinue,
}: {
  busy: boolean;
  onCancel: () => void;
  onContinue: () => void;
}) {
  return (
    <ConfirmDialog
      title="Before you continue"
      tone="primary"
      confirmLabel="Continue to Google"
      busyLabel="Opening Google..."
      busy={busy}
      onConfirm={onContinue}
      onCancel={onCancel}
    >
      <p>Google will ask which permissions Keepsake may have. Make sure this box is ticked:</p>
      <p className="drive-permission">
        <span className="drive-permission-box" aria-hidden="true">
          ✓
        </span>
        {DRIVE_PERMISSION_TEXT}
      </p>
      <p>
        Keepsake can then see only the files it creates — your backups — and nothing else in your
        Drive. Without it, backups cannot be saved.
      </p>
    </ConfirmDialog>
  );
}
