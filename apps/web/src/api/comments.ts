import {
  type CommentSettingResponse,
  type CommentSettingsResponse,
  commentSettingResponse,
  commentSettingsResponse,
  type PostCommentsResponse,
  postCommentsResponse,
} from "@keepsake/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { hardRedirect } from "../lib/redirect.ts";
import { toast } from "../lib/toast.ts";
import { api, errorDetail } from "./client.ts";

export const commentKeys = {
  settings: ["comments", "settings"] as const,
  post: (postId: string) => ["comments", "post", postId] as const,
};

export async function fetchCommentSettings(): Promise<CommentSettingsResponse> {
  const { data } = await api.get<unknown>("/comments/settings");
  return commentSettingsResponse.parse(data);
}

export async function fetchPostComments(postId: string): Promise<PostCommentsResponse> {
  const { data } = await api.get<unknown>(`/comments/posts/${encodeURIComponent(postId)}`);
  return postCommentsResponse.parse(data);
}

export async function setKeepComments(
  accountId: string,
  enabled: boolean,
): Promise<CommentSettingResponse> {
  const { data } = await api.put<unknown>(`/comments/settings/${encodeURIComponent(accountId)}`, {
    enabled,
  });
  return commentSettingResponse.parse(data);
}

export function useCommentSettings() {
  return useQuery({ queryKey: commentKeys.settings, queryFn: fetchCommentSettings });
}

export function usePostComments(postId: string) {
  return useQuery({ queryKey: commentKeys.post(postId), queryFn: () => fetchPostComments(postId) });
}

/** Turning comments on goes on to Instagram's consent page; turning them off says what stays. */
export function useSetKeepComments() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (v: { accountId: string; enabled: boolean }) =>
      setKeepComments(v.accountId, v.enabled),
    onSuccess: async (answer) => {
      await client.invalidateQueries({ queryKey: commentKeys.settings });
      if (answer.auth_url) {
        hardRedirect(answer.auth_url);
        return;
      }
      toast.success(answer.message);
    },
    onError: (error) => toast.error(errorDetail(error, "Failed to change the comments setting")),
  });
}
