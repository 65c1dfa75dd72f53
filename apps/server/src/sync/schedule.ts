import { createHash } from "node:crypto";
import { SYNC_INTERVAL_MINUTES } from "@keepsake/contracts";

const INTERVAL_S = SYNC_INTERVAL_MINUTES * 60;

/**
 * Where in each 10-minute interval an account's scheduled sync starts: a stable offset from
 * its id, so accounts are spread over the interval instead of all firing on the tick.
 * The last minute stays free so a run starts before the next tick.
 */
export function spreadOffsetSeconds(accountId: string): number {
  const n = createHash("sha256").update(accountId).digest().readUInt32BE(0);
  return n % (INTERVAL_S - 60);
}

/** Whole minutes until the account's next scheduled sync, at least 1. */
export function minutesUntilNextSync(accountId: string, now: Date): number {
  const t = Math.floor(now.getTime() / 1000);
  const tick = t - (t % INTERVAL_S);
  let at = tick + spreadOffsetSeconds(accountId);
  if (at <= t) at += INTERVAL_S;
  return Math.max(1, Math.ceil((at - t) / 60));
}
