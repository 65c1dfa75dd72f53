import {
  type InstagramAccount,
  type InstagramAccountsResponse,
  pausedAccountMessages,
  type SubscriptionTier,
} from "@keepsake/contracts";
import { accountLimit, normalizeTier } from "../billing/index.ts";
import { type AccountProfilesService, instagramHealth } from "../connections/index.ts";
import type { InstagramAccountRow } from "../connections/tables.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";

export interface AccountStats {
  synced_posts_count: number;
  synced_stories_count: number;
  backed_up_posts_count: number;
  last_sync: Date | null;
  stories_need_facebook_login?: boolean;
}

/**
 * Per-account counts, asked of the areas that own them (wired in context.ts): synced posts,
 * stories and the last sync from the sync area, completed backups from the backups area.
 * Without them an account reports what the accounts table knows: no posts yet.
 */
export interface AccountStatsLoader {
  synced(
    accountIds: string[],
  ): Promise<
    Map<
      string,
      { synced: number; stories: number; lastSync: Date | null; storiesRefused?: boolean }
    >
  >;
  backedUp(accountIds: string[]): Promise<Map<string, number>>;
}

export interface AccountsServiceDeps {
  /** The connections area's account profiles (rows, removal, profile refresh). */
  profiles: Pick<
    AccountProfilesService,
    "listInstagramAccounts" | "disconnectInstagram" | "refreshProfile"
  >;
  clock: Clock;
  stats?: AccountStatsLoader;
  /** Pauses the accounts beyond `limit` (preferring `keep`); returns how many are paused. */
  applyAccountLimit?: (userId: string, limit: number, keep?: string) => Promise<number>;
}

export function createAccountsService(deps: AccountsServiceDeps) {
  const { profiles, clock } = deps;

  async function loadStats(ids: string[]): Promise<Map<string, AccountStats>> {
    const out = new Map<string, AccountStats>();
    if (!deps.stats || ids.length === 0) return out;
    const [synced, backedUp] = await Promise.all([
      deps.stats.synced(ids),
      deps.stats.backedUp(ids),
    ]);
    for (const id of ids) {
      const s = synced.get(id);
      out.set(id, {
        synced_posts_count: s?.synced ?? 0,
        synced_stories_count: s?.stories ?? 0,
        backed_up_posts_count: backedUp.get(id) ?? 0,
        last_sync: s?.lastSync ?? null,
        stories_need_facebook_login: s?.storiesRefused ?? false,
      });
    }
    return out;
  }

  async function shape(rows: InstagramAccountRow[]): Promise<InstagramAccount[]> {
    const stats = await loadStats(rows.map((r) => r.id));
    const now = clock.now();
    return rows.map((a) => {
      const s: AccountStats | undefined = stats.get(a.id);
      const health = instagramHealth(a, now);
      const lastSync = s?.last_sync ?? null;
      return {
        id: a.id,
        username: a.username,
        display_name: a.display_name,
        profile_picture_url: a.profile_picture_url,
        follower_count: a.followers_count,
        following_count: a.follows_count,
        posts_count: a.media_count,
        synced_posts_count: s?.synced_posts_count ?? 0,
        synced_stories_count: s?.synced_stories_count ?? 0,
        backed_up_posts_count: s?.backed_up_posts_count ?? 0,
        connected_at: new Date(a.connected_at).toISOString(),
        last_sync: lastSync ? new Date(lastSync).toISOString() : null,
        token_expires_at: a.token_expires_at ? new Date(a.token_expires_at).toISOString() : null,
        connected_via: a.connected_via,
        status: health.status,
        status_reason: health.reason,
        paused_by_plan: a.paused_by_plan,
        stories_need_facebook_login:
          a.connected_via === "instagram" && (s?.stories_need_facebook_login ?? false),
        destination: a.destination,
      };
    });
  }

  return {
    /** SPEC §3 "Social accounts response". */
    async list(user: {
      id: string;
      subscription_tier: SubscriptionTier;
    }): Promise<InstagramAccountsResponse> {
      const rows = await profiles.listInstagramAccounts(user.id);
      const tier = normalizeTier(user.subscription_tier);
      const limit = accountLimit(tier);
      const remaining = Math.max(0, limit - rows.length);
      return {
        accounts: await shape(rows),
        limit,
        can_connect_more: remaining > 0,
        remaining_slots: remaining,
        subscription_tier: tier,
      };
    },

    async remove(userId: string, accountId: string) {
      return profiles.disconnectInstagram(userId, accountId);
    },

    /**
     * After a downgrade: the user keeps this account (it syncs again); when that puts them
     * over the plan's limit, the most recently connected other account is paused instead.
     * The answer names the kept account and the ones paused now.
     */
    async keep(user: { id: string; subscription_tier: string }, accountId: string) {
      const rows = await profiles.listInstagramAccounts(user.id);
      const kept = rows.find((r) => r.id === accountId);
      if (!kept) throw new AppError("not_found", "Instagram account not found");
      const limit = accountLimit(user.subscription_tier);
      const paused = deps.applyAccountLimit
        ? await deps.applyAccountLimit(user.id, limit, accountId)
        : 0;
      const after = paused > 0 ? await profiles.listInstagramAccounts(user.id) : [];
      return {
        message: pausedAccountMessages.kept(
          kept.username,
          after.filter((a) => a.paused_by_plan).map((a) => a.username),
        ),
        paused_accounts: paused,
      };
    },

    async refreshProfile(userId: string, accountId: string): Promise<InstagramAccount> {
      const row = await profiles.refreshProfile(userId, accountId);
      const [account] = await shape([row]);
      if (!account) throw new AppError("not_found", "Instagram account not found");
      return account;
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
