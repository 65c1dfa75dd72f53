import { describe, expect, it } from "vitest";
import { readingDue, restoreUntil, walkDue } from "../../src/archive/archive.rules.ts";

const DAY = 86_400_000;
const t0 = new Date("2026-03-01T12:00:00Z");
const at = (days: number) => new Date(t0.getTime() + days * DAY);
const counters = { likes: 10, comments: 2, views: 100, saves: 1, shares: 0, reposts: 0 };

describe("when a post's counters are read", () => {
  const last = (days: number, c = counters) => ({ at: at(days), counters: c });
  it("first when it is seen (the backup follows), then about 1, 7 and 30 days after posting", () => {
    const base = { postedAt: t0, counters, walk: false };
    expect(readingDue({ ...base, now: at(0.01), last: null })).toBe("backup");
    expect(readingDue({ ...base, now: at(0.5), last: last(0.01) })).toBeNull();
    expect(readingDue({ ...base, now: at(1.2), last: last(0.01) })).toBe("day_1");
    expect(readingDue({ ...base, now: at(3), last: last(1.2) })).toBeNull();
    expect(readingDue({ ...base, now: at(7.5), last: last(1.2) })).toBe("day_7");
    // A post first seen at 40 days gets its first reading only; later marks have passed.
    expect(readingDue({ ...base, now: at(41), last: last(40) })).toBeNull();
    expect(readingDue({ ...base, now: at(31), last: last(8) })).toBe("day_30");
  });

  it("at a walk only when the counters changed", () => {
    const base = { postedAt: t0, now: at(60), last: last(40), walk: true };
    expect(readingDue({ ...base, counters })).toBeNull();
    expect(readingDue({ ...base, counters: { ...counters, likes: 11 } })).toBe("walk");
    expect(readingDue({ ...base, walk: false, counters: { ...counters, likes: 11 } })).toBeNull();
  });
});

describe("when the whole media list is walked", () => {
  const base = {
    now: at(10),
    lastWalkAt: at(9),
    mediaCount: 40,
    mediaCountAtWalk: 40,
    oldestPendingMissAt: null,
    usagePercent: 10,
  };
  it("never walked, after media_count dropped, a day after a miss, and weekly", () => {
    expect(walkDue({ ...base, lastWalkAt: null })).toBe("never_walked");
    expect(walkDue(base)).toBeNull();
    expect(walkDue({ ...base, mediaCount: 39 })).toBe("media_count_dropped");
    expect(walkDue({ ...base, mediaCount: 41 })).toBeNull();
    expect(walkDue({ ...base, oldestPendingMissAt: at(9.5) })).toBeNull();
    expect(walkDue({ ...base, oldestPendingMissAt: at(9) })).toBe("confirm_missing");
    expect(walkDue({ ...base, lastWalkAt: at(3) })).toBe("weekly");
  });

  it("puts a weekly walk off while the Graph budget is at 80 % or more, not a drop", () => {
    expect(walkDue({ ...base, lastWalkAt: at(3), usagePercent: 79 })).toBe("weekly");
    expect(walkDue({ ...base, lastWalkAt: at(3), usagePercent: 80 })).toBeNull();
    expect(walkDue({ ...base, mediaCount: 39, usagePercent: 95 })).toBe("media_count_dropped");
  });

  it("restores for 30 days from when the post was last seen", () => {
    expect(restoreUntil(at(2)).toISOString()).toBe(at(32).toISOString());
  });
});
