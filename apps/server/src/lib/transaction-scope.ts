import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Whether the current async context holds a database transaction. `db/transaction.ts` marks
 * every transaction it runs; the provider HTTP layer (`providers/http.ts`), the Stripe client
 * and the SMTP sender refuse to call out while one is open: a provider that takes 20 s (× 3
 * tries) would hold the transaction's locks, and its connection, that long. Lock, commit,
 * call, then lock again to write.
 */
const scope = new AsyncLocalStorage<{ open: boolean }>();

/** Runs `fn` marked as inside a transaction; the mark ends when `fn` settles. */
export async function withinTransactionScope<T>(fn: () => Promise<T>): Promise<T> {
  const mark = { open: true };
  try {
    return await scope.run(mark, fn);
  } finally {
    // Work started inside and still running afterwards (nothing awaited it) is outside now.
    mark.open = false;
  }
}

/** Whether the caller runs inside a database transaction. */
export function insideTransaction(): boolean {
  return scope.getStore()?.open === true;
}

/** A provider call attempted inside a database transaction: a programming error. */
export class CallInTransactionError extends Error {
  override readonly name = "CallInTransactionError";
  readonly call: string;
  constructor(call: string) {
    super(
      `${call} was called inside a database transaction: commit first, call the provider, ` +
        "then write in a new transaction",
    );
    this.call = call;
  }
}

/** Throws a CallInTransactionError naming `call` when a transaction is open. */
export function assertOutsideTransaction(call: string): void {
  if (insideTransaction()) throw new CallInTransactionError(call);
}
