import type { Kysely, Transaction } from "kysely";
import { withinTransactionScope } from "../lib/transaction-scope.ts";
import type { Database } from "./schema.ts";

/**
 * The one way to run a transaction (`npm run check:cycles` refuses `.transaction()` anywhere
 * else): `fn` runs marked as inside it, so a provider call from within (Stripe, Google,
 * Instagram, Facebook, SMTP) is refused (`lib/transaction-scope.ts`) instead of holding the
 * transaction's locks and connection while the provider answers.
 */
export function inTransaction<T>(
  db: Kysely<Database>,
  fn: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return withinTransactionScope(() => db.transaction().execute(fn));
}
