import { commentMessages } from "@keepsake/contracts/comments-messages";
import { useState } from "react";
import { useCommentSettings, useSetKeepComments } from "../../api/comments.ts";
import { ConsentDialog } from "../dashboard/consent-dialog.tsx";
import "../dashboard/comments.css";

/**
 * Settings → Connected Accounts, per account: "Also keep comments" (issue 30). Turning it on
 * asks first, then goes to Instagram (or Facebook) to grant the comments permission (issue 36);
 * turning it off stops the reads and says what stays in Drive.
 */
export function KeepComments({ accountId, username }: { accountId: string; username: string }) {
  const settings = useCommentSettings();
  const change = useSetKeepComments();
  const [asking, setAsking] = useState(false);
  const setting = settings.data?.accounts.find((a) => a.account_id === accountId);
  if (!setting) return null;
  const id = `keep-comments-${accountId}`;
  const provider = setting.connected_via === "facebook" ? "Facebook" : "Instagram";
  return (
    <div className="keep-comments">
      <label htmlFor={id} className="keep-comments-label">
        <input
          id={id}
          type="checkbox"
          checked={setting.enabled}
          disabled={change.isPending}
          onChange={(e) =>
            e.target.checked ? setAsking(true) : change.mutate({ accountId, enabled: false })
          }
          aria-label={`Also keep comments of @${username}`}
        />{" "}
        Also keep comments
      </label>
      <p className="muted keep-comments-note">
        {setting.enabled
          ? setting.permission_missing
            ? commentMessages.permissionMissing
            : "Comments and replies are saved beside each post in your Drive (…_comments.json), refreshed over the post's first month and weekly after. Comments removed on Instagram stay, marked."
          : setting.kept_comments > 0
            ? `Not reading comments. The ${setting.kept_comments} already kept stay in your Drive.`
            : `Keepsake asks ${provider} for permission to read your posts' comments.`}
      </p>
      {setting.enabled && setting.permission_missing && (
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          onClick={() => setAsking(true)}
          disabled={change.isPending}
        >
          Grant access on {provider}
        </button>
      )}
      {asking && (
        <ConsentDialog
          title={`Keep the comments of @${username}?`}
          provider={provider}
          busy={change.isPending}
          onCancel={() => setAsking(false)}
          onContinue={() =>
            change.mutate({ accountId, enabled: true }, { onError: () => setAsking(false) })
          }
        >
          <p>
            Reading comments needs {provider}'s comments permission, which @{username}'s{" "}
            {setting.connected_via === "facebook" ? "Facebook Login" : "Instagram Login"} does not
            include yet. You'll go to {provider} to allow it, then come back to Keepsake.
          </p>
          <p>Nothing else about @{username} changes: its posts keep being backed up.</p>
        </ConsentDialog>
      )}
    </div>
  );
}
