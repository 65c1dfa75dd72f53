import { connectionMessages as m, type SubscriptionTier } from "@keepsake/contracts";
import { accountLimit } from "../billing/index.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { InstagramProfile } from "../providers/instagram/instagram.client.ts";
import { ConnectionError } from "./connection-error.ts";
import { instagramHealth, profileFields } from "./connection-rules.ts";
import type { ConnectionsRepository } from "./connections.repository.ts";
import type { InstagramAccountRow, InstagramAccountUpdate } from "./tables.ts";

/**
 * The plan's account limit as the OAuth flows meet it: whether a user may start connecting
 * another Instagram account, and storing a connected one within the limit.
 */
export function createAccountSlots(deps: {
  repo: Pick<ConnectionsRepository, "userTier" | "listInstagramAccounts" | "transaction">;
  clock: Clock;
  seal: (token: string) => string;
}) {
  const { repo, clock, seal } = deps;

  async function assertCanAddAccount(userId: string) {
    const tier = await repo.userTier(userId);
    if (!tier) throw new AppError("not_found", "User not found");
    const accounts = await repo.listInstagramAccounts(userId);
    const limit = accountLimit(tier);
    const now = clock.now();
    // At the limit a user may still reconnect an account whose access ended.
    const reconnecting = accounts.some(
      (a) => instagramHealth(a, now).status === "needs_reconnection",
    );
    if (accounts.length >= limit && !reconnecting) {
      throw new ConnectionError("forbidden", "account_limit", m.accountLimit(limit, tier));
    }
  }

  /** Stores a connected Instagram account: refreshes it when known, else adds it within the limit. */
  async function saveInstagramAccount(
    userId: string,
    profile: InstagramProfile,
    token: { accessToken: string; expiresAt: Date | null },
    via: {
      connectedVia: "instagram" | "facebook";
      facebookPageId: string | null;
      metaUserId: string | null;
    },
  ): Promise<InstagramAccountRow> {
    const now = clock.now();
    const fields = {
      connected_via: via.connectedVia,
      facebook_page_id: via.facebookPageId,
      meta_user_id: via.metaUserId,
      ...profileFields(profile),
      account_type: profile.accountType,
      access_token_encrypted: seal(token.accessToken),
      token_issued_at: now,
      token_expires_at: token.expiresAt,
      status: "active" as const,
      status_reason: null,
      last_validated_at: now,
    } satisfies InstagramAccountUpdate;
    return repo.transaction(async (tx) => {
      const tier: SubscriptionTier | undefined = await tx.lockUser(userId);
      if (!tier) throw new AppError("not_found", "User not found");
      const existing = await tx.findByInstagramUserId(profile.userId);
      if (existing && existing.user_id !== userId) {
        throw new ConnectionError("conflict", "account_taken", m.accountTaken);
      }
      if (existing) {
        const updated = await tx.updateInstagramAccount(existing.id, fields, now);
        if (!updated) throw new AppError("conflict", "The account changed; please try again.");
        return updated;
      }
      const count = (await tx.listInstagramAccounts(userId)).length;
      const limit = accountLimit(tier);
      if (count >= limit) {
        throw new ConnectionError("forbidden", "account_limit", m.accountLimit(limit, tier));
      }
      const row = await tx.insertInstagramAccount({
        ...fields,
        user_id: userId,
        instagram_user_id: profile.userId,
        connected_at: now,
        updated_at: now,
      });
      if (!row) throw new ConnectionError("conflict", "account_taken", m.accountTaken);
      return row;
    });
  }

  return { assertCanAddAccount, saveInstagramAccount };
}
