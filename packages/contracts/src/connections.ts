import { z } from "zod";
import { subscriptionTier } from "./auth.ts";

/** Account limits per tier (SPEC §6, §9). */
export const ACCOUNT_LIMITS = { free: 1, premium: 1, pro: 3, agency: 10 } as const;

/** SPEC §9: a token expiring within this window is "expiring soon". */
export const TOKEN_WARNING_WINDOW_MS = 7 * 86_400_000;

/** Messages shared by the server and the screens (SPEC §5, §8). */
export const connectionMessages = {
  accountLimit: (limit: number, tier: string) =>
    `Account limit reached. You can connect up to ${limit} account(s) with your ${tier} plan.`,
  personalAccount:
    "Only Instagram Professional accounts (Business or Creator) can be backed up. Switch your account to a Professional account in the Instagram app, then connect again.",
  facebookPageRequired:
    "Your Instagram professional account must be linked to a Facebook Page. Link it in Instagram (Settings → Account type and tools → Connect or create a Facebook Page), then connect again.",
  unsupportedAccount:
    "This Instagram account type is not supported. Use a Professional (Business or Creator) account linked to a Facebook Page.",
  instagramCancelled: "Instagram connection was cancelled.",
  facebookCancelled: "Facebook connection was cancelled.",
  googleCancelled: "Google Drive connection was cancelled.",
  drivePermissionRequired:
    "Google Drive permission was not granted. Connect again and tick the box that lets Keepsake see, edit, create and delete only the specific Google Drive files it uses.",
  accountTaken: "This Instagram account is already connected to another Keepsake user.",
  stateInvalid: "Invalid connection request. Please start connecting again.",
  stateExpired: "The connection request expired. Please start connecting again.",
  stateUsed: "This connection request was already used. Please start connecting again.",
  stateOtherUser: "This connection request was started by another user.",
  notConfigured: (provider: string) => `${provider} is not configured on this server.`,
  /** A disconnect that names no account, while several are connected. */
  chooseAccountToDisconnect: (connected: number) =>
    `You have ${connected} Instagram accounts connected. Choose which one to disconnect (account_id).`,
  /** What disconnecting removes: our records, never the files in the user's Drive. */
  disconnected: (usernames: readonly string[]) =>
    `${usernames.map((u) => `@${u}`).join(", ")} disconnected: ${usernames.length === 1 ? "its" : "their"} posts and backup records were removed from Keepsake. Files already in your Google Drive stay there.`,
} as const;

/** "1 account", "2 accounts": English plural forms (CLDR rules, not "account(s)"). */
export function countOf(n: number, one: string, other: string): string {
  const form = new Intl.PluralRules("en-US").select(n) === "one" ? one : other;
  return `${n.toLocaleString("en-US")} ${form}`;
}

/** Messages of accounts paused by a plan's account limit (after a downgrade). */
export const pausedAccountMessages = {
  notice: (paused: number, limit: number, plan: string) =>
    `${countOf(paused, "Instagram account is", "Instagram accounts are")} paused because your ${plan} plan syncs ${countOf(limit, "account", "accounts")}. Choose which ${limit === 1 ? "account" : "accounts"} to keep, or disconnect the others; paused accounts are not synced.`,
  kept: (kept: string, paused: readonly string[]) =>
    paused.length === 0
      ? `@${kept} is synced again. All your Instagram accounts are synced.`
      : `@${kept} is synced again. Paused now: ${paused.map((u) => `@${u}`).join(", ")}.`,
} as const;

/** `error_type` values of the callback redirect (`/dashboard?error=...&error_type=...`). */
export const connectionErrorType = z.enum([
  "personal_account",
  "facebook_page_required",
  "unsupported_account",
  "drive_permission_required",
  "account_limit",
  "account_taken",
  "access_denied",
  "invalid_state",
  "provider_error",
]);
export type ConnectionErrorType = z.infer<typeof connectionErrorType>;

export const oauthProvider = z.enum(["instagram", "facebook", "google"]);
export type OAuthProvider = z.infer<typeof oauthProvider>;

export const instagramLoginQuery = z.object({
  account_type: z
    .enum(["business", "personal"], { error: "account_type must be business or personal" })
    .default("business"),
});
export type InstagramLoginQuery = z.infer<typeof instagramLoginQuery>;

export const authUrlResponse = z.object({ auth_url: z.string() });
export type AuthUrlResponse = z.infer<typeof authUrlResponse>;

/** SPEC §3 "Callback payload". */
export const oauthCallbackRequest = z.object({
  code: z.string({ error: "code is required" }).min(1, "code is required").max(4096),
  state: z.string({ error: "state is required" }).min(1, "state is required").max(4096),
});
export type OAuthCallbackRequest = z.infer<typeof oauthCallbackRequest>;

/** Answer of `POST /api/oauth/{provider}/callback`. Failures answer `{detail, error_type}`. */
export const oauthCallbackResponse = z.object({
  provider: oauthProvider,
  /** The dashboard URL the browser flow would land on. */
  redirect_to: z.string(),
  instagram_username: z.string().nullable(),
  google_email: z.string().nullable(),
});
export type OAuthCallbackResponse = z.infer<typeof oauthCallbackResponse>;

export const oauthCallbackError = z.object({
  detail: z.string(),
  error_type: connectionErrorType.optional(),
});
export type OAuthCallbackError = z.infer<typeof oauthCallbackError>;

/** SPEC §3 "OAuth status", plus whether either side needs reconnecting. */
export const oauthStatus = z.object({
  instagram_connected: z.boolean(),
  instagram_username: z.string().nullable(),
  google_connected: z.boolean(),
  google_email: z.string().nullable(),
  instagram_needs_reconnect: z.boolean(),
  google_needs_reconnect: z.boolean(),
});
export type OAuthStatus = z.infer<typeof oauthStatus>;

/** healthy: usable; expiring: usable but the token ends within 7 days; needs_reconnection: dead. */
export const connectionState = z.enum(["healthy", "expiring", "needs_reconnection"]);
export type ConnectionState = z.infer<typeof connectionState>;

export const instagramConnectionHealth = z.object({
  account_id: z.string(),
  username: z.string(),
  connected_via: z.enum(["instagram", "facebook"]),
  status: connectionState,
  /** Why the status is not healthy, in words a person understands; null when healthy. */
  reason: z.string().nullable(),
  token_expires_at: z.string().nullable(),
  last_validated_at: z.string().nullable(),
});
export type InstagramConnectionHealth = z.infer<typeof instagramConnectionHealth>;

export const googleConnectionHealth = z.object({
  email: z.string(),
  status: connectionState,
  reason: z.string().nullable(),
  last_validated_at: z.string().nullable(),
});
export type GoogleConnectionHealth = z.infer<typeof googleConnectionHealth>;

/**
 * `GET /api/oauth/connection-health` (from what Keepsake knows) and
 * `POST /api/oauth/refresh-connections` (after re-validating every token with its provider).
 * `overall` is the worst status over all connections, null when there are none.
 */
export const connectionHealth = z.object({
  overall: connectionState.nullable(),
  checked_at: z.string(),
  instagram: z.array(instagramConnectionHealth),
  google: googleConnectionHealth.nullable(),
});
export type ConnectionHealth = z.infer<typeof connectionHealth>;

/** `GET /api/oauth/connection-status`: the compact summary the header and the buttons need. */
export const connectionStatus = z.object({
  ready_for_backup: z.boolean(),
  instagram: z.object({
    connected: z.boolean(),
    status: connectionState.nullable(),
    accounts: z.number().int(),
    needs_reconnection: z.number().int(),
  }),
  google: z.object({
    connected: z.boolean(),
    status: connectionState.nullable(),
    email: z.string().nullable(),
  }),
  /** What the user should do next, e.g. "Reconnect @lumen.studio". Empty when nothing. */
  actions: z.array(z.string()),
});
export type ConnectionStatus = z.infer<typeof connectionStatus>;

/** SPEC §3 Account, plus its connection state. */
export const instagramAccount = z.object({
  id: z.string(),
  username: z.string(),
  display_name: z.string().nullable(),
  profile_picture_url: z.string().nullable(),
  follower_count: z.number().int(),
  following_count: z.number().int(),
  posts_count: z.number().int(),
  /** Posts and stories Keepsake has read from Instagram (stories included). */
  synced_posts_count: z.number().int(),
  /** Of `synced_posts_count`, the stories (Instagram's own `posts_count` counts no stories). */
  synced_stories_count: z.number().int().default(0),
  backed_up_posts_count: z.number().int(),
  connected_at: z.string(),
  last_sync: z.string().nullable(),
  token_expires_at: z.string().nullable(),
  connected_via: z.enum(["instagram", "facebook"]),
  status: connectionState,
  status_reason: z.string().nullable(),
  /** A downgrade left more accounts than the plan allows: this one is not synced until kept. */
  paused_by_plan: z.boolean().default(false),
  /**
   * Instagram refused this account's stories through Instagram Login (issue 30): its posts are
   * backed up; its stories need the account connected through Facebook Login.
   */
  stories_need_facebook_login: z.boolean().default(false),
});
export type InstagramAccount = z.infer<typeof instagramAccount>;

/** SPEC §3 "Social accounts response". */
export const instagramAccountsResponse = z.object({
  accounts: z.array(instagramAccount),
  limit: z.number().int(),
  can_connect_more: z.boolean(),
  remaining_slots: z.number().int(),
  subscription_tier: subscriptionTier,
});
export type InstagramAccountsResponse = z.infer<typeof instagramAccountsResponse>;

export const disconnectInstagramQuery = z.object({
  account_id: z.uuid({ error: "account_id must be an account id" }).optional(),
});

export const disconnectResponse = z.object({
  message: z.string(),
  /** Instagram: how many accounts were removed. */
  disconnected: z.number().int(),
  /** Google: whether Google confirmed the revocation. */
  revoked: z.boolean().optional(),
});
export type DisconnectResponse = z.infer<typeof disconnectResponse>;
