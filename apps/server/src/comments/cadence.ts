const DAY = 86_400_000;

/**
 * When a post's comments are read again: at its backup (the first read), then about 1, 7 and
 * 30 days after it was posted, then weekly. One small rule the lead may point the engagement
 * counters' cadence at (issue 30): the next milestone after `readAt`, else a week after it.
 */
export const COMMENT_MILESTONE_DAYS = [1, 7, 30] as const;
export const COMMENT_WEEKLY_MS = 7 * DAY;

export function nextCommentRead(postedAt: Date, readAt: Date): Date {
  for (const days of COMMENT_MILESTONE_DAYS) {
    const at = postedAt.getTime() + days * DAY;
    if (at > readAt.getTime()) return new Date(at);
  }
  return new Date(readAt.getTime() + COMMENT_WEEKLY_MS);
}

/** Reads per post in its first `days` days after its backup (for bench:sync's budget). */
export function readsInFirstDays(days: number): number {
  return 1 + COMMENT_MILESTONE_DAYS.filter((d) => d <= days).length;
}
