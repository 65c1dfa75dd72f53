import { type ArchiveCounters, archiveCounters } from "@keepsake/contracts";
import type { MetricsReason } from "./tables.ts";

const DAY_MS = 86_400_000;

/** A full walk of the media list runs at least this often (issue 30). */
export const WALK_EVERY_MS = 7 * DAY_MS;
/** A post missing from walks this far apart (and then not found by id) is gone. */
export const MISSED_APART_MS = DAY_MS;
/** Instagram keeps a deleted post this long in "Recently Deleted". */
export const RESTORE_WINDOW_MS = 30 * DAY_MS;
/** Above this Graph usage a weekly walk waits for a quieter sync (the pacer's own threshold). */
export const WALK_USAGE_CEILING_PERCENT = 80;
/** Posts confirmed by id per walk at most (each costs one Graph call). */
export const PROBES_PER_WALK = 25;
/** The media edge lists at most the newest 10,000 media: older posts are never "missing". */
export const MEDIA_EDGE_MAX = 10_000;

/** Readings a little after posting: about 1, 7 and 30 days (newest mark first). */
const MARKS: [number, MetricsReason][] = [
  [30, "day_30"],
  [7, "day_7"],
  [1, "day_1"],
];

export type Counters = ArchiveCounters;

/** Just the counters of a row that has more (`archiveCounters`' order). */
export const countersOf = (r: Counters): Counters =>
  Object.fromEntries(archiveCounters.map((c) => [c, r[c]])) as Counters;

export const sameCounters = (a: Counters, b: Counters) =>
  archiveCounters.every((c) => a[c] === b[c]);

/**
 * Whether a post's counters are to be kept now, and as which reading: the first time it is
 * seen (it is backed up right after), when it passed 1, 7 or 30 days since posting after its
 * last reading, and on a full walk when they changed since.
 */
export function readingDue(a: {
  postedAt: Date;
  now: Date;
  last: { at: Date; counters: Counters } | null;
  counters: Counters;
  walk: boolean;
}): MetricsReason | null {
  if (!a.last) return "backup";
  for (const [days, reason] of MARKS) {
    const mark = a.postedAt.getTime() + days * DAY_MS;
    if (a.now.getTime() >= mark && a.last.at.getTime() < mark) return reason;
  }
  if (a.walk && !sameCounters(a.last.counters, a.counters)) return "walk";
  return null;
}

/** Whether this sync walks the whole media list (the caller walks anyway when the history is new). */
export function walkDue(a: {
  now: Date;
  lastWalkAt: Date | null;
  /** The profile's media_count now, and at the last walk. */
  mediaCount: number | null;
  mediaCountAtWalk: number | null;
  /** The latest miss of a post a walk did not see (a second walk a day later confirms it). */
  oldestPendingMissAt: Date | null;
  usagePercent: number | null;
}): "never_walked" | "media_count_dropped" | "confirm_missing" | "weekly" | null {
  if (!a.lastWalkAt) return "never_walked";
  if (a.mediaCount !== null && a.mediaCountAtWalk !== null && a.mediaCount < a.mediaCountAtWalk)
    return "media_count_dropped";
  const now = a.now.getTime();
  if (a.oldestPendingMissAt && now - a.oldestPendingMissAt.getTime() >= MISSED_APART_MS)
    return "confirm_missing";
  if (now - a.lastWalkAt.getTime() >= WALK_EVERY_MS) {
    // Paced by the Graph budget: a busy account walks at a later sync, before it is throttled.
    if ((a.usagePercent ?? 0) >= WALK_USAGE_CEILING_PERCENT) return null;
    return "weekly";
  }
  return null;
}

/** Until when Instagram lets the creator restore a post it deleted (from when we saw it gone). */
export const restoreUntil = (goneDetectedAt: Date) =>
  new Date(goneDetectedAt.getTime() + RESTORE_WINDOW_MS);
