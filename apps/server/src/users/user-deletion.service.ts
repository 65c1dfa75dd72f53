import type { DeletionResponse } from "@keepsake/contracts";
import type { UserRow } from "../auth/tables.ts";
import { backupPostJob } from "../backups/index.ts";
import { AppError } from "../lib/errors.ts";
import type { ServiceLog } from "../lib/log.ts";
import { syncAccountJob } from "../sync/index.ts";
import type { UserDeletionRepository } from "./user-deletion.repository.ts";

export interface UserDeletionDeps {
  repo: UserDeletionRepository;
  /** Revokes the user's Google grant (best effort) and forgets the tokens. */
  disconnectGoogle(userId: string): Promise<{ revoked: boolean }>;
  /** Revokes the user's Dropbox grant (best effort) and forgets every other destination. */
  disconnectDestinations(userId: string): Promise<{ revoked: number }>;
  /** De-authorises Keepsake at Facebook for accounts connected through Facebook Login. */
  revokeFacebook(userId: string): Promise<{ revoked: number; failed: number }>;
  /** Cancels live Stripe subscriptions and deletes the Stripe customer; throws when it cannot. */
  forgetBillingCustomer(userId: string): Promise<unknown>;
  queue: { purge(name: string, field: string, values: readonly string[]): Promise<number> };
  /** Forgets the user's mail choices (the mail area keys them by id and by address). */
  forgetMail?(userId: string, email: string): Promise<void>;
  log?: ServiceLog;
}

/**
 * Deleting a user (by an admin, or by the user in Settings → Profile): a live Stripe
 * subscription is cancelled and the Stripe customer deleted, the Google grant is revoked at
 * Google, a Dropbox grant at Dropbox, and Facebook Login grants at Facebook, queued work is dropped, and every row Keepsake
 * holds about the user is deleted. Files already in their Drive stay there: Keepsake never deletes Drive files.
 * Instagram Login has no revocation endpoint; its tokens are deleted with the accounts.
 */
export function createUserDeletionService(deps: UserDeletionDeps) {
  return {
    async deleteUser(user: Pick<UserRow, "id" | "email">): Promise<DeletionResponse> {
      // First: a subscription that outlived its user would keep charging them.
      await deps.forgetBillingCustomer(user.id);
      let googleRevoked = false;
      try {
        googleRevoked = (await deps.disconnectGoogle(user.id)).revoked;
      } catch (err) {
        // 404: no Drive connected. Anything else must not keep the account alive.
        if (!(err instanceof AppError && err.kind === "not_found")) {
          deps.log?.warn({ userId: user.id }, "google disconnect during deletion failed");
        }
      }
      await deps.disconnectDestinations(user.id).catch(() => {
        deps.log?.warn({ userId: user.id }, "destination disconnect during deletion failed");
      });
      const facebook = await deps.revokeFacebook(user.id).catch(() => {
        deps.log?.warn({ userId: user.id }, "facebook revoke during deletion failed");
        return { revoked: 0, failed: 1 };
      });
      const { accountIds, postIds } = await deps.repo.idsOf(user.id);
      await deps.queue.purge(syncAccountJob.name, "accountId", accountIds);
      await deps.queue.purge(backupPostJob.name, "postId", postIds);
      const deleted = await deps.repo.deleteUser(user.id, user.email);
      if (!deleted) throw new AppError("not_found", "User not found");
      await deps.forgetMail?.(user.id, user.email);
      return {
        message: `Account ${user.email} deleted. Files already in Google Drive stay there.`,
        google_revoked: googleRevoked,
        facebook_revoked: facebook.revoked,
      };
    },
  };
}

export type UserDeletionService = ReturnType<typeof createUserDeletionService>;
