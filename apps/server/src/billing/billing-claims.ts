import { randomUUID } from "node:crypto";
import { AppError } from "../lib/errors.ts";
import type { BillingRepository } from "./billing.repository.ts";

/**
 * How long a claim lasts: longer than the Stripe calls of one change can take (each up to 20 s,
 * three tries). A process that dies while holding one lets go when it lapses.
 */
export const CLAIM_LEASE_SECONDS = 300;
/** How long a change waits for another change of the same user before it gives up. */
export const CLAIM_WAIT_MS = 30_000;

/** Answered when a change waited `CLAIM_WAIT_MS` for the user's other billing change. */
export class BillingBusyError extends AppError {
  constructor(message: string) {
    super("unavailable", message, { retryAfterSeconds: 5 });
  }
}

/**
 * Changes of this process waiting for a user's claim: a release here wakes them at once (a
 * claim released by another process is noticed by polling).
 */
const waiting = new Map<string, Set<() => void>>();

function released(userId: string): void {
  for (const wake of waiting.get(userId) ?? []) wake();
}

/** Resolves after `ms`, or sooner when this process releases the user's claim. */
function pauseFor(userId: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const set = waiting.get(userId) ?? new Set();
    waiting.set(userId, set);
    const done = () => {
      clearTimeout(timer);
      set.delete(done);
      if (set.size === 0 && waiting.get(userId) === set) waiting.delete(userId);
      resolve();
    };
    const timer = setTimeout(done, ms);
    set.add(done);
  });
}

export interface BillingClaim {
  readonly token: string;
  /** Whether the claim is still this change's (checked inside the write transaction). */
  held(repo: Pick<BillingRepository, "holdsClaim">): Promise<boolean>;
}

/**
 * One billing change of a user at a time — a Checkout or a Stripe event — without a database
 * transaction held while Stripe answers: `hold` claims the user's row in `billing_claims`
 * (waiting while another change holds it), runs `fn` (Stripe calls, then a short write
 * transaction that checks `claim.held`), and lets go. Waiting is polling, woken at once by a
 * release in the same process.
 */
export function createBillingClaims(
  repo: Pick<BillingRepository, "tryClaim" | "releaseClaim">,
  options: { waitMs?: number; leaseSeconds?: number } = {},
) {
  const waitMs = options.waitMs ?? CLAIM_WAIT_MS;
  const leaseSeconds = options.leaseSeconds ?? CLAIM_LEASE_SECONDS;
  return {
    async hold<T>(
      userId: string,
      busyMessage: string,
      fn: (claim: BillingClaim) => Promise<T>,
    ): Promise<T> {
      const token = randomUUID();
      const deadline = Date.now() + waitMs;
      let pause = 10;
      for (;;) {
        const got = await repo.tryClaim(userId, token, leaseSeconds);
        if (got === "no_user") throw new AppError("not_found", "User not found");
        if (got === "claimed") break;
        if (Date.now() >= deadline) throw new BillingBusyError(busyMessage);
        await pauseFor(userId, pause);
        pause = Math.min(pause * 2, 200);
      }
      const claim: BillingClaim = {
        token,
        held: (tx) => tx.holdsClaim(userId, token),
      };
      try {
        return await fn(claim);
      } finally {
        await repo.releaseClaim(userId, token).catch(() => {});
        released(userId);
      }
    },
  };
}

export type BillingClaims = ReturnType<typeof createBillingClaims>;
