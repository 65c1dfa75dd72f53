import {
  type ConnectionState,
  type OAuthProvider,
  TOKEN_WARNING_WINDOW_MS,
} from "@keepsake/contracts";
import type { InstagramProfile } from "../providers/instagram/instagram.client.ts";
import type { GoogleConnectionRow, InstagramAccountRow, InstagramAccountUpdate } from "./tables.ts";

/**
 * The small rules the parts of the connections area share (OAuth, token custody, account
 * profiles, health): labels, dates, the health of a stored connection, the profile columns.
 */

const DAY_MS = 86_400_000;
/** Instagram refuses to refresh a long-lived token younger than this. */
export const REFRESH_MIN_AGE_MS = DAY_MS;

export const LABEL: Record<OAuthProvider, string> = {
  instagram: "Instagram",
  facebook: "Facebook",
  google: "Google",
};

/** Where the parts report what went wrong outside a request. */
export interface ConnectionsLog {
  warn(obj: object, msg: string): void;
}

export const day = (d: Date) => d.toISOString().slice(0, 10);
export const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);
export const expiresAt = (now: Date, seconds: number | null) =>
  seconds === null ? null : new Date(now.getTime() + seconds * 1000);

const rank: Record<ConnectionState, number> = { healthy: 0, expiring: 1, needs_reconnection: 2 };
/** The worst of some states; `null` without any. */
export const worst = (states: ConnectionState[]): ConnectionState | null =>
  states.length === 0 ? null : states.reduce((a, b) => (rank[b] > rank[a] ? b : a));

/** The provider an Instagram account was connected through, for a person. */
export const viaLabel = (a: Pick<InstagramAccountRow, "connected_via">) =>
  a.connected_via === "facebook" ? "Facebook" : "Instagram";

/** The account columns a profile read fills; a profile without a type keeps the stored one. */
export const profileFields = (p: InstagramProfile) =>
  ({
    username: p.username,
    display_name: p.name,
    ...(p.accountType ? { account_type: p.accountType } : {}),
    profile_picture_url: p.profilePictureUrl,
    followers_count: p.followersCount,
    follows_count: p.followsCount,
    media_count: p.mediaCount,
  }) satisfies InstagramAccountUpdate;

/** The message of an Instagram token that ended on `expires`. */
export const expiredReason = (label: string, expires: Date) =>
  `The ${label} access token expired on ${day(expires)}. Reconnect the account.`;

/** What Keepsake knows of an Instagram account's access at `now`, without asking Instagram. */
export function instagramHealth(
  a: InstagramAccountRow,
  now: Date,
): { status: ConnectionState; reason: string | null } {
  const label = viaLabel(a);
  const expires = a.token_expires_at ? new Date(a.token_expires_at) : null;
  if (a.status === "needs_reconnection") {
    return {
      status: "needs_reconnection",
      reason: a.status_reason ?? `${label} access ended. Reconnect the account.`,
    };
  }
  if (expires && expires.getTime() <= now.getTime()) {
    return { status: "needs_reconnection", reason: expiredReason(label, expires) };
  }
  if (expires && expires.getTime() - now.getTime() <= TOKEN_WARNING_WINDOW_MS) {
    return {
      status: "expiring",
      reason:
        a.connected_via === "instagram"
          ? `The Instagram access token expires on ${day(expires)}; Keepsake renews it automatically.`
          : `The Facebook access token expires on ${day(expires)}; reconnect via Facebook before then.`,
    };
  }
  return { status: "healthy", reason: null };
}

/** What Keepsake knows of a Google Drive connection's access. */
export function googleHealth(g: GoogleConnectionRow): {
  status: ConnectionState;
  reason: string | null;
} {
  if (g.status === "needs_reconnection") {
    return {
      status: "needs_reconnection",
      reason: g.status_reason ?? "Google Drive access ended. Reconnect Google Drive.",
    };
  }
  return { status: "healthy", reason: null };
}
