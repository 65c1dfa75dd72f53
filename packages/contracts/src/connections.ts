import { z } from "zod";
import { subscriptionTier } from "./auth.ts";
import { DESTINATION_KINDS } from "./destination-kinds.ts";

export {
  ACCOUNT_LIMITS,
  connectionMessages,
  countOf,
  pausedAccountMessages,
  TOKEN_WARNING_WINDOW_MS,
} from "./connections-messages.ts";

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
  /** Where this account is backed up (issue 38); absent or null from an older server: Google Drive. */
  destination: z.enum(DESTINATION_KINDS).nullish(),
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
