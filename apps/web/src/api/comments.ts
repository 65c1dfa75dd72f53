import type {
  ArchivedComment,
  CommentSetting,
  CommentSettingResponse,
  CommentSettingsResponse,
  PostCommentsResponse,
} from "@keepsake/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { hardRedirect } from "../lib/redirect.ts";
import { toast } from "../lib/toast.ts";
import { api, errorDetail } from "./client.ts";

/**
 * The comment answers are checked, not only typed (a malformed answer must not break Settings or
 * the post's details): each field as the contracts' schema has it, without loading zod. The
 * tables are typed by the contracts, so a field added there must be added here.
 */
type Check = (v: unknown) => boolean;
type Fields<T> = { [K in keyof T]-?: Check };
const isString: Check = (v) => typeof v === "string";
const isBoolean: Check = (v) => typeof v === "boolean";
const isInteger: Check = (v) => Number.isInteger(v);
const orNull =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);
const isObject =
  <T>(fields: Fields<T>): Check =>
  (v) =>
    typeof v === "object" &&
    v !== null &&
    Object.entries(fields).every(([k, check]) =>
      (check as Check)((v as Record<string, unknown>)[k]),
    );
const listOf =
  (check: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every(check);

const isCommentSetting = isObject<CommentSetting>({
  account_id: isString,
  username: isString,
  connected_via: (v) => v === "instagram" || v === "facebook",
  enabled: isBoolean,
  permission_missing: isBoolean,
  kept_comments: isInteger,
});
const commentFields: Fields<Omit<ArchivedComment, "replies">> = {
  id: isString,
  username: orNull(isString),
  text: isString,
  timestamp: isString,
  like_count: orNull(isInteger),
  hidden: isBoolean,
  removed_at: orNull(isString),
};
const isArchivedComment = isObject<ArchivedComment>({
  ...commentFields,
  replies: listOf(isObject(commentFields)),
});
const isCommentSettings = isObject<CommentSettingsResponse>({ accounts: listOf(isCommentSetting) });
const isCommentSettingAnswer = isObject<CommentSettingResponse>({
  setting: isCommentSetting,
  auth_url: orNull(isString),
  message: isString,
});
const isPostComments = isObject<PostCommentsResponse>({
  enabled: isBoolean,
  last_read_at: orNull(isString),
  comments: listOf(isArchivedComment),
});

function checked<T>(data: unknown, check: Check, what: string): T {
  if (!check(data)) throw new Error(`Unexpected answer from ${what}`);
  return data as T;
}

export const commentKeys = {
  settings: ["comments", "settings"] as const,
  post: (postId: string) => ["comments", "post", postId] as const,
};

export async function fetchCommentSettings(): Promise<CommentSettingsResponse> {
  const { data } = await api.get<unknown>("/comments/settings");
  return checked<CommentSettingsResponse>(data, isCommentSettings, "GET /api/comments/settings");
}

export async function fetchPostComments(postId: string): Promise<PostCommentsResponse> {
  const { data } = await api.get<unknown>(`/comments/posts/${encodeURIComponent(postId)}`);
  return checked<PostCommentsResponse>(data, isPostComments, "GET /api/comments/posts");
}

export async function setKeepComments(
  accountId: string,
  enabled: boolean,
): Promise<CommentSettingResponse> {
  const { data } = await api.put<unknown>(`/comments/settings/${encodeURIComponent(accountId)}`, {
    enabled,
  });
  return checked<CommentSettingResponse>(
    data,
    isCommentSettingAnswer,
    "PUT /api/comments/settings",
  );
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
