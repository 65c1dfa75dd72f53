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

/** Graph counts usage over a rolling hour: an older reading says nothing about now. */
const USAGE_WINDOW_MS = 60 * 60_000;
/** From this usage an account syncs every other interval; from `SKIP_FROM` it waits. */
export const SPREAD_FROM_PERCENT = 50;
export const SKIP_FROM_PERCENT = 80;

/**
 * Whether this scheduler tick queues the account's sync, given the Graph usage its last sync
 * saw: below 50 % always; from 50 % every other interval (half the calls); from 80 % not at
 * all until the reading is an hour old, so the account never reaches Graph's throttle.
 */
export function syncThisInterval(
  accountId: string,
  usage: { percent: number | null; at: Date | null },
  now: Date,
): boolean {
  if (usage.percent === null || usage.at === null) return true;
  if (now.getTime() - usage.at.getTime() >= USAGE_WINDOW_MS) return true;
  if (usage.percent >= SKIP_FROM_PERCENT) return false;
  if (usage.percent < SPREAD_FROM_PERCENT) return true;
  const interval = Math.floor(now.getTime() / 1000 / INTERVAL_S);
  // Accounts alternate by a bit of their id, so the half that waits is not the same tick for all.
  return (interval + (spreadOffsetSeconds(accountId) % 2)) % 2 === 0;
}

const NO_USAGE = { percent: null, at: null } as const;

/**
 * Whole minutes until the account's next scheduled sync, at least 1: its next turn in an
 * interval the scheduler syncs it in, given the Graph usage its last sync saw (an account near
 * Graph's limit skips intervals). So the countdown only starts again after a turn that syncs.
 */
export function minutesUntilNextSync(
  accountId: string,
  now: Date,
  usage: { percent: number | null; at: Date | null } = NO_USAGE,
): number {
  const t = Math.floor(now.getTime() / 1000);
  const offset = spreadOffsetSeconds(accountId);
  let tick = t - (t % INTERVAL_S);
  // A reading ages out of Graph's window within an hour: the 8th interval syncs at the latest.
  for (let i = 0; i < 8; i++, tick += INTERVAL_S) {
    const at = tick + offset;
    if (at <= t || !syncThisInterval(accountId, usage, new Date(tick * 1000))) continue;
    return Math.max(1, Math.ceil((at - t) / 60));
  }
  return Math.max(1, Math.ceil((tick + offset - t) / 60));
}

/**
 * Seconds until the account's scheduled sync of the current interval, or null when its time
 * in this interval has passed (the next tick queues the next one).
 */
export function secondsUntilSlotThisInterval(accountId: string, now: Date): number | null {
  const t = Math.floor(now.getTime() / 1000);
  const at = t - (t % INTERVAL_S) + spreadOffsetSeconds(accountId);
  return at > t ? at - t : null;
}
