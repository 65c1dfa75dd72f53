import { sql } from "kysely";
import { createPlansRepository } from "../auth/index.ts";
import type { Db } from "../db/database.ts";
import { underLimitLocks } from "../db/limits.ts";
import type { ApiKeyRow } from "./tables.ts";

/** SQL of the public API's own tables: api_keys and api_idempotency_keys. */
export function createApiKeysRepository(db: Db) {
  const plans = createPlansRepository(db);
  return {
    listLive(userId: string) {
      return db
        .selectFrom("api_keys")
        .selectAll()
        .where("user_id", "=", userId)
        .where("revoked_at", "is", null)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .execute();
    },

    /**
     * Inserts a key unless its owner already holds `max` live keys; undefined then. Counted and
     * decided under the owner's lock, so a parallel burst creates at most `max`.
     */
    insertWithin(
      k: { user_id: string; name: string; prefix: string; key_hash: string; now: Date },
      max: number,
    ): Promise<ApiKeyRow | undefined> {
      return underLimitLocks(db, [`api-keys:user:${k.user_id}`], async (trx) => {
        const live = await trx
          .selectFrom("api_keys")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .where("user_id", "=", k.user_id)
          .where("revoked_at", "is", null)
          .executeTakeFirstOrThrow();
        if (Number(live.n) >= max) return undefined;
        return trx
          .insertInto("api_keys")
          .values({
            user_id: k.user_id,
            name: k.name,
            prefix: k.prefix,
            key_hash: k.key_hash,
            created_at: k.now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      });
    },

    async revoke(userId: string, id: string, now: Date): Promise<boolean> {
      const r = await db
        .updateTable("api_keys")
        .set({ revoked_at: now })
        .where("id", "=", id)
        .where("user_id", "=", userId)
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    /** The live key with this hash, with its owner's plan and state (asked of auth/). */
    async findByHash(keyHash: string) {
      const key = await db
        .selectFrom("api_keys")
        .select(["id", "user_id", "last_used_at"])
        .where("key_hash", "=", keyHash)
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      if (!key) return undefined;
      const owner = await plans.keyOwner(key.user_id);
      return owner ? { ...key, ...owner } : undefined;
    },

    /**
     * Counts one request of a key in the window that starts at `windowStart` and answers the
     * window's count, this request included. One statement: parallel requests, from any API
     * process, each get their own count. A key's first request in a window clears its older ones.
     */
    async hitRateWindow(keyId: string, windowStart: Date): Promise<number> {
      const row = await db
        .insertInto("api_rate_windows")
        .values({ key_id: keyId, window_start: windowStart, hits: 1 })
        .onConflict((oc) =>
          oc
            .columns(["key_id", "window_start"])
            .doUpdateSet({ hits: sql<number>`api_rate_windows.hits + 1` }),
        )
        .returning("hits")
        .executeTakeFirstOrThrow();
      if (row.hits === 1) {
        await db
          .deleteFrom("api_rate_windows")
          .where("key_id", "=", keyId)
          .where("window_start", "<", windowStart)
          .execute();
      }
      return row.hits;
    },

    async touch(id: string, now: Date) {
      await db.updateTable("api_keys").set({ last_used_at: now }).where("id", "=", id).execute();
    },

    findIdempotent(userId: string, key: string, since: Date) {
      return db
        .selectFrom("api_idempotency_keys")
        .select(["fingerprint", "status_code", "response"])
        .where("user_id", "=", userId)
        .where("idempotency_key", "=", key)
        .where("created_at", ">", since)
        .executeTakeFirst();
    },

    /** Stores a first answer; false when another request stored one first. */
    async saveIdempotent(r: {
      user_id: string;
      idempotency_key: string;
      fingerprint: string;
      status_code: number;
      response: unknown;
      now: Date;
      expiredBefore: Date;
    }): Promise<boolean> {
      // A key older than the replay window is free again.
      await db
        .deleteFrom("api_idempotency_keys")
        .where("user_id", "=", r.user_id)
        .where("idempotency_key", "=", r.idempotency_key)
        .where("created_at", "<=", r.expiredBefore)
        .execute();
      const res = await db
        .insertInto("api_idempotency_keys")
        .values({
          user_id: r.user_id,
          idempotency_key: r.idempotency_key,
          fingerprint: r.fingerprint,
          status_code: r.status_code,
          response: JSON.stringify(r.response),
          created_at: r.now,
        })
        .onConflict((oc) => oc.columns(["user_id", "idempotency_key"]).doNothing())
        .executeTakeFirst();
      return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
  };
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
