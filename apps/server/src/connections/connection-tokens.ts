import type { GraphHost } from "../providers/instagram/media.client.ts";

/** What the sync and backup engines (and the sync services) need from the connections area. */
export interface ConnectionTokens {
  googleAccessToken(userId: string, options?: { forceRefresh?: boolean }): Promise<string>;
  instagramAccessToken(accountId: string): Promise<{
    token: string;
    connectedVia: GraphHost;
    instagramUserId: string;
  }>;
  /** The same, from an account row read with its sealed token (SyncDirectory.accountForSync). */
  openInstagramToken(account: {
    access_token_encrypted: string;
    connected_via: GraphHost;
    instagram_user_id: string;
  }): { token: string; connectedVia: GraphHost; instagramUserId: string };
  markInstagramNeedsReconnection(accountId: string, reason: string): Promise<void>;
  /** The user's accounts, profiles (media counts) older than `maxAgeMs` read again first. */
  refreshStaleProfiles(userId: string, maxAgeMs: number): Promise<{ media_count: number }[]>;
}
