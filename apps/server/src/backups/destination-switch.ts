import {
  type AccountDestinationResponse,
  DESTINATION_LABELS,
  type DestinationKind,
  syncMessages as m,
} from "@keepsake/contracts";
import { sql } from "kysely";
import { createConnectionsRepository } from "../connections/index.ts";
import type { Db } from "../db/database.ts";
import { inTransaction } from "../db/transaction.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { SyncDirectory } from "../sync/index.ts";
import { importedPosts, pendingAgain } from "./destination-owner.ts";

/**
 * Choosing where an Instagram account is backed up (issue 38). The account's destination and
 * its backups change in one transaction: every backup that is done (or running) becomes
 * pending for the new destination, so the account's whole history is copied there exactly once
 * — the ledger keeps each destination's files apart, so switching back finds what was written
 * there and uploads nothing again. Files already in the old destination stay where they are.
 * The copy then starts as after connecting (any plan).
 */
export function createDestinationSwitch(deps: {
  db: Db;
  clock: Clock;
  directory: Pick<SyncDirectory, "userAccounts" | "destinationState">;
  startAfterConnect(userId: string, accountIds: string[]): Promise<unknown>;
}) {
  const { db, clock } = deps;

  /** Makes the account's backups pending for `to`; answers how many there are to copy. */
  async function resetBackups(trx: Db, accountId: string, to: DestinationKind, now: Date) {
    await trx
      .updateTable("backups")
      .set({ ...pendingAgain(now), destination: to })
      .where("account_id", "=", accountId)
      .where("status", "in", ["completed", "unavailable", "processing", "pending"])
      // What an export import wrote stays where it is: its media is not Instagram's to fetch.
      .where("post_id", "not in", importedPosts(trx, { account_id: accountId }))
      .execute();
    // Failed backups keep their failure (and the plan limit's): they are retried there.
    await trx
      .updateTable("backups")
      .set({ destination: to })
      .where("account_id", "=", accountId)
      .where("status", "=", "failed")
      .where("post_id", "not in", importedPosts(trx, { account_id: accountId }))
      .execute();
    const row = await trx
      .selectFrom("backups")
      .select(sql<string>`count(*)`.as("n"))
      .where("account_id", "=", accountId)
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  return {
    async switchAccount(
      userId: string,
      accountId: string,
      to: DestinationKind,
    ): Promise<AccountDestinationResponse> {
      const account = (await deps.directory.userAccounts(userId)).find((a) => a.id === accountId);
      if (!account) throw new AppError("not_found", m.accountNotFound);
      const label = DESTINATION_LABELS[to];
      if (account.destination === to) {
        return {
          account_id: accountId,
          destination: to,
          posts_to_copy: 0,
          message: `@${account.username} is already backed up to ${label}.`,
        };
      }
      const state = await deps.directory.destinationState(userId, to);
      if (state.problem !== null) throw new AppError("bad_request", state.problem);
      const now = clock.now();
      const copied = await inTransaction(db, async (trx) => {
        const repo = createConnectionsRepository(trx);
        await repo.lockUser(userId);
        if (!(await repo.setAccountDestination(userId, accountId, to, now))) {
          throw new AppError("not_found", m.accountNotFound);
        }
        return resetBackups(trx, accountId, to, now);
      });
      // Outside the transaction: the copy starts as after connecting (the queue, not a provider).
      await deps.startAfterConnect(userId, [accountId]);
      const from = DESTINATION_LABELS[account.destination];
      return {
        account_id: accountId,
        destination: to,
        posts_to_copy: copied,
        message:
          copied === 0
            ? `@${account.username} is now backed up to ${label}.`
            : `@${account.username} is now backed up to ${label}: ${copied} ${
                copied === 1 ? "post is" : "posts are"
              } being copied there. What is in ${from} stays there.`,
      };
    },
  };
}

export type DestinationSwitch = ReturnType<typeof createDestinationSwitch>;
