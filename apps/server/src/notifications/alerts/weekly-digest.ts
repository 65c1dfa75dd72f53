import { bytesWords, isoWeek } from "../alert-words.ts";
import { type AlertContext, alertKind, DAY_MS } from "./define.ts";

/**
 * The weekly digest (Mondays, the `weekly-digest` job): an e-mail only, off unless the user
 * turned it on, once per ISO week.
 */
export const digestKind = alertKind("digest_weekly", "digest-weekly", {
  label: "Weekly digest",
  why: "You are receiving this e-mail because you turned on Keepsake's weekly digest.",
  setting: {
    label: "Weekly digest",
    description: "What was backed up, storage used, and anything that needs your attention.",
  },
  defaultOn: false,
});

export async function weeklyDigest(ctx: AlertContext, now: Date): Promise<number> {
  const { sources } = ctx;
  const week = isoWeek(now);
  let sent = 0;
  for (const userId of await sources.digestUsers()) {
    if (!(await sources.mayReceiveDigest(userId))) continue;
    const s = await sources.userSummary(userId, new Date(now.getTime() - 7 * DAY_MS));
    const actions = await sources.connectionActions(userId);
    const attention = [
      ...actions,
      ...(s.failed_total > 0
        ? [`${s.failed_total} failed ${s.failed_total === 1 ? "backup" : "backups"} to retry`]
        : []),
    ];
    const r = await ctx.mailOnly(userId, `digest:${userId}:${week}`, {
      kind: digestKind,
      title: "Your Keepsake week",
      paragraphs: [
        `This week Keepsake backed up ${s.backed_up_since} ${s.backed_up_since === 1 ? "post" : "posts"} into your Google Drive.`,
        `In all, ${s.completed_total} ${s.completed_total === 1 ? "post is" : "posts are"} safe in your Drive, using ${bytesWords(s.bytes_total)}.`,
        attention.length > 0
          ? "Needs your attention:"
          : "Nothing needs your attention: everything is running.",
      ],
      items: attention,
      action: { label: "Open dashboard", path: "/dashboard" },
    });
    if (r.id !== null && r.created) sent++;
  }
  return sent;
}
