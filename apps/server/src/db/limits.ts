import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "./schema.ts";
import { inTransaction } from "./transaction.ts";

/**
 * Runs `fn` in a transaction that first takes the transaction-level advisory lock of each key
 * (e.g. `contact:ip:203.0.113.9`). A limit counted and decided inside `fn` is then atomic: a
 * parallel burst for the same key takes turns, and each request sees what the ones before it
 * recorded. Keys are locked in sorted order, so two callers sharing keys never deadlock. The
 * locks end with the transaction.
 */
export function underLimitLocks<T>(
  db: Kysely<Database>,
  keys: readonly string[],
  fn: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const sorted = [...new Set(keys)].sort();
  return inTransaction(db, async (trx) => {
    for (const key of sorted) {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
    }
    return fn(trx);
  });
}
