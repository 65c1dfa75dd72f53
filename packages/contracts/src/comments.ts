import { z } from "zod";

export { commentMessages } from "./comments-messages.ts";

/** Per account: "Also keep comments" (issue 30). */
export const commentSetting = z.object({
  account_id: z.string(),
  username: z.string(),
  connected_via: z.enum(["instagram", "facebook"]),
  enabled: z.boolean(),
  /** Instagram refused to read comments: the permission must be granted (again). */
  permission_missing: z.boolean(),
  /** Comments kept in Keepsake for this account (they stay, in Drive too, when turned off). */
  kept_comments: z.number().int(),
});
export type CommentSetting = z.infer<typeof commentSetting>;

export const commentSettingsResponse = z.object({ accounts: z.array(commentSetting) });
export type CommentSettingsResponse = z.infer<typeof commentSettingsResponse>;

export const commentSettingParams = z.object({
  accountId: z.uuid({ error: "accountId must be an account id" }),
});
export const commentSettingBody = z.object({ enabled: z.boolean() });

export const commentSettingResponse = z.object({
  setting: commentSetting,
  /** Turning comments on: Instagram's consent page that grants the comments permission. */
  auth_url: z.string().nullable(),
  message: z.string(),
});
export type CommentSettingResponse = z.infer<typeof commentSettingResponse>;

export const postCommentsParams = z.object({
  postId: z.uuid({ error: "postId must be a post id" }),
});

export const archivedComment = z.object({
  id: z.string(),
  username: z.string().nullable(),
  text: z.string(),
  timestamp: z.string(),
  like_count: z.number().int().nullable(),
  hidden: z.boolean(),
  /** When Keepsake saw it gone from Instagram; it stays in the archive. */
  removed_at: z.string().nullable(),
  replies: z.array(
    z.object({
      id: z.string(),
      username: z.string().nullable(),
      text: z.string(),
      timestamp: z.string(),
      like_count: z.number().int().nullable(),
      hidden: z.boolean(),
      removed_at: z.string().nullable(),
    }),
  ),
});
export type ArchivedComment = z.infer<typeof archivedComment>;

export const postCommentsResponse = z.object({
  /** Whether the post's account keeps comments now. */
  enabled: z.boolean(),
  last_read_at: z.string().nullable(),
  comments: z.array(archivedComment),
});
export type PostCommentsResponse = z.infer<typeof postCommentsResponse>;
