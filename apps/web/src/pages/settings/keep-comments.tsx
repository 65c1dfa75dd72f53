import { commentMessages } from "@keepsake/contracts/comments-messages";
import { useCommentSettings, useSetKeepComments } from "../../api/comments.ts";
import "../dashboard/comments.css";

/**
 * Settings → Connected Accounts, per account: "Also keep comments" (issue 30). Turning it on goes
 * to Instagram to grant the comments permission; turning it off stops the reads and says what
 * stays in Drive.
 */
export function KeepComments({ accountId, username }: { accountId: string; username: string }) {
  const settings = useCommentSettings();
  const change = useSetKeepComments();
  const setting = settings.data?.accounts.find((a) => a.account_id === accountId);
  if (!setting) return null;
  const id = `keep-comments-${accountId}`;
  return (
    <div className="keep-comments">
      <label htmlFor={id} className="keep-comments-label">
        <input
          id={id}
          type="checkbox"
          checked={setting.enabled}
          disabled={change.isPending}
          onChange={(e) => change.mutate({ accountId, enabled: e.target.checked })}
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
            : "Keepsake asks Instagram for permission to read your posts' comments."}
      </p>
      {setting.enabled && setting.permission_missing && (
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          onClick={() => change.mutate({ accountId, enabled: true })}
          disabled={change.isPending}
        >
          Grant access on Instagram
        </button>
      )}
    </div>
  );
}
