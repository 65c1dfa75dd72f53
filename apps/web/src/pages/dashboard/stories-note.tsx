import type { AuthUrlResponse, InstagramAccount } from "@keepsake/contracts";
import { commentMessages } from "@keepsake/contracts/comments-messages";
import { useMutation } from "@tanstack/react-query";
import { api, errorDetail } from "../../api/client.ts";
import { hardRedirect } from "../../lib/redirect.ts";
import { toast } from "../../lib/toast.ts";

/**
 * Instagram refused the account's stories through Instagram Login (issue 30): its posts are
 * backed up; the note says so and offers the same account through Facebook Login.
 */
export function StoriesNeedFacebookNote({ account }: { account: InstagramAccount }) {
  const connect = useMutation({
    mutationFn: async () =>
      (await api.get<unknown>("/oauth/facebook/switch-url")).data as AuthUrlResponse,
    onSuccess: ({ auth_url }) => hardRedirect(auth_url),
    onError: (error) => toast.error(errorDetail(error, "Failed to connect via Facebook")),
  });
  if (!account.stories_need_facebook_login) return null;
  return (
    <div className="muted stories-note" role="status" data-testid="stories-need-facebook">
      <p>
        <strong>Stories need Facebook Login.</strong>{" "}
        {commentMessages.facebookStories(account.username)}
      </p>
      <button
        type="button"
        className="btn btn-secondary btn-sm"
        onClick={() => connect.mutate()}
        disabled={connect.isPending}
      >
        Add stories with Facebook Login
      </button>
    </div>
  );
}
