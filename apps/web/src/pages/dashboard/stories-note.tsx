import type { AuthUrlResponse, InstagramAccount } from "@keepsake/contracts";
import { commentMessages } from "@keepsake/contracts/comments-messages";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api, errorDetail } from "../../api/client.ts";
import { useCommentSettings } from "../../api/comments.ts";
import { hardRedirect } from "../../lib/redirect.ts";
import { toast } from "../../lib/toast.ts";
import { ConsentDialog } from "./consent-dialog.tsx";

/**
 * Instagram refused the account's stories through Instagram Login (issue 30): its posts are
 * backed up; the note says so and offers the same account through Facebook Login, after saying
 * what the switch changes (issue 36): its comments, when kept, need Facebook's permission too,
 * which the switch asks for in the same step.
 */
export function StoriesNeedFacebookNote({ account }: { account: InstagramAccount }) {
  const [asking, setAsking] = useState(false);
  const comments = useCommentSettings();
  const keepsComments =
    comments.data?.accounts.find((s) => s.account_id === account.id)?.enabled ?? false;
  const connect = useMutation({
    mutationFn: async () => {
      const query = new URLSearchParams({
        account_id: account.id,
        keep_comments: String(keepsComments),
      });
      return (await api.get<unknown>(`/oauth/facebook/switch-url?${query}`))
        .data as AuthUrlResponse;
    },
    onSuccess: ({ auth_url }) => hardRedirect(auth_url),
    onError: (error) => {
      setAsking(false);
      toast.error(errorDetail(error, "Failed to connect via Facebook"));
    },
  });
  if (!account.stories_need_facebook_login) return null;
  return (
    <div className="warning-note stories-note" role="status" data-testid="stories-need-facebook">
      <p>
        <strong>Stories need Facebook Login.</strong>{" "}
        {commentMessages.facebookStories(account.username)}
      </p>
      <button
        type="button"
        className="btn btn-secondary btn-sm"
        onClick={() => setAsking(true)}
        disabled={connect.isPending}
      >
        Add stories with Facebook Login
      </button>
      {asking && (
        <ConsentDialog
          title={`Switch @${account.username} to Facebook Login?`}
          provider="Facebook"
          busy={connect.isPending}
          onCancel={() => setAsking(false)}
          onContinue={() => connect.mutate()}
        >
          <p>
            You'll go to Facebook to sign in and choose the Facebook Page linked to @
            {account.username}. Through Facebook Login, Keepsake backs up its stories as well as its
            posts.
          </p>
          {keepsComments ? (
            <p data-testid="switch-comments">
              Facebook Login does not include the comments permission you gave Instagram: Facebook
              will also ask you to let Keepsake read @{account.username}'s comments. If you don't
              allow it, Keepsake stops reading them (those already kept stay in your Drive).
            </p>
          ) : (
            <p data-testid="switch-comments">
              Facebook Login does not include the comments permission: to keep @{account.username}
              's comments later, turn them on in Settings and allow it on Facebook.
            </p>
          )}
        </ConsentDialog>
      )}
    </div>
  );
}
