import { DESTINATION_LABELS, connectionMessages as m } from "@keepsake/contracts";
import { accountLimit } from "../billing/index.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { notRespondingTryLater } from "../providers/failure-words.ts";
import type { ConnectionsRepository } from "./connections.repository.ts";
import type { InstagramAccountRow } from "./tables.ts";
import type { TokenCustody } from "./token-custody.service.ts";

export interface AccountProfilesDeps {
  repo: Pick<
    ConnectionsRepository,
    | "listInstagramAccounts"
    | "findInstagramAccount"
    | "deleteInstagramAccount"
    | "earliestTokenExpiry"
    | "transaction"
  >;
  clock: Clock;
  /** Reading a profile again goes through the account's token (renewed when due). */
  tokens: Pick<TokenCustody, "validateInstagram">;
  /**
   * Called after Instagram accounts were disconnected (their rows, posts and backup records are
   * gone): their running syncs end, and a freed slot resumes a paused account.
   */
  onDisconnected?: (userId: string, accountLimit: number) => Promise<unknown>;
}

/** Account profiles: the user's connected Instagram accounts, their profile data, removal. */
export function createAccountProfilesService(deps: AccountProfilesDeps) {
  const { repo, clock, tokens } = deps;

  return {
    listInstagramAccounts: (userId: string) => repo.listInstagramAccounts(userId),

    /**
     * The user's accounts, with the profiles (and so the media counts) of working accounts
     * last read `maxAgeMs` ago or longer read again. A provider error keeps what is known.
     */
    async refreshStaleProfiles(userId: string, maxAgeMs: number): Promise<InstagramAccountRow[]> {
      const now = clock.now().getTime();
      const out: InstagramAccountRow[] = [];
      for (const a of await repo.listInstagramAccounts(userId)) {
        const seen = a.last_validated_at ? new Date(a.last_validated_at).getTime() : 0;
        const stale = a.status !== "needs_reconnection" && now - seen >= maxAgeMs;
        out.push(stale ? (await tokens.validateInstagram(a)).account : a);
      }
      return out;
    },

    /** Fetches the account's profile again (and refreshes its token when due). */
    async refreshProfile(userId: string, accountId: string): Promise<InstagramAccountRow> {
      const a = await repo.findInstagramAccount(userId, accountId);
      if (!a) throw new AppError("not_found", "Instagram account not found");
      const { account, error } = await tokens.validateInstagram(a);
      if (error?.kind === "token_invalid") {
        throw new AppError(
          "conflict",
          account.status_reason ?? `Instagram access for @${a.username} ended. Reconnect it.`,
        );
      }
      if (error) {
        throw new AppError("upstream", notRespondingTryLater("Instagram"));
      }
      return account;
    },

    /**
     * Disconnects one account: its row goes, and with it (ON DELETE CASCADE) its posts and
     * backup records; files in Drive stay. Without an id only a user's single account may go:
     * with several, the caller must say which (a disconnect never removes an account by guess).
     */
    async disconnectInstagram(userId: string, accountId?: string) {
      const { removed, tier } = await repo.transaction(async (tx) => {
        const tier = await tx.lockUser(userId);
        const accounts = await tx.listInstagramAccounts(userId);
        if (!accountId && accounts.length > 1) {
          throw new AppError("conflict", m.chooseAccountToDisconnect(accounts.length));
        }
        const target = accountId ? accounts.find((a) => a.id === accountId) : accounts[0];
        if (!target) {
          throw new AppError(
            "not_found",
            accountId ? "Instagram account not found" : "No Instagram account is connected",
          );
        }
        await tx.deleteInstagramAccount(userId, target.id);
        return { removed: target, tier };
      });
      if (tier) await deps.onDisconnected?.(userId, accountLimit(tier));
      return {
        message: m.disconnected([removed.username], DESTINATION_LABELS[removed.destination]),
        disconnected: 1,
      };
    },

    /** The profile's `social_accounts` and `token_expires_at` (auth's SocialAccountsLoader). */
    async socialAccounts(userId: string) {
      const accounts = await repo.listInstagramAccounts(userId);
      return {
        accounts: accounts.map((a) => ({
          id: a.id,
          username: a.username,
          display_name: a.display_name,
          profile_picture_url: a.profile_picture_url,
        })),
        tokenExpiresAt: await repo.earliestTokenExpiry(userId),
      };
    },
  };
}

export type AccountProfilesService = ReturnType<typeof createAccountProfilesService>;
