import { CAUSES, FIXES } from "../../health/index.ts";
import { shortHash } from "../alert-words.ts";
import { type AlertContext, alertKind, DAY_MS, defineAlert } from "./define.ts";

/** Stories whose 24 hours ended before they were backed up (one alert per account per check). */
const kind = alertKind("alert_stories", "alert-stories", {
  label: "Stories that could not be saved",
  why: "You are receiving this e-mail because stories expired before Keepsake could save them.",
  setting: {
    label: "Lost stories",
    description: "Stories that expired before they could be saved.",
  },
});

async function lostStories(ctx: AlertContext, now: Date): Promise<number> {
  const { repo, sources } = ctx;
  const rows = await sources.expiredStories(new Date(now.getTime() - 7 * DAY_MS), now);
  const byAccount = new Map<string, typeof rows>();
  for (const r of rows) byAccount.set(r.account_id, [...(byAccount.get(r.account_id) ?? []), r]);
  let sent = 0;
  for (const [accountId, stories] of byAccount) {
    const ids = stories.map((s) => s.post_id).sort();
    const marked = await repo.mark("story-lost", ids, now);
    const fresh = stories.filter((s) => marked.has(s.post_id));
    if (fresh.length === 0) continue;
    const owner = await sources.accountOwner(accountId);
    if (!owner) continue;
    const n = fresh.length;
    // The health state's words for the account: the stories it counts lost now; this check's
    // own when a backup completed since (the state has cleared).
    const state = (
      await sources.lostStories(owner.user_id, new Date(now.getTime() - 7 * DAY_MS), now)
    ).find((x) => x.accountId === accountId);
    try {
      const r = await ctx.notify(owner.user_id, {
        key: `alert:stories-lost:${accountId}:${shortHash(fresh.map((s) => s.post_id).join(","))}`,
        kind,
        title: `${n} ${n === 1 ? "story" : "stories"} of @${owner.username} expired before ${n === 1 ? "it" : "they"} could be saved`,
        paragraphs: [
          CAUSES.storiesLost(owner.username, state?.lost ?? n),
          "To keep the next ones, make sure the account and Google Drive stay connected and your Drive has room.",
        ],
        items: fresh.map(
          (s) =>
            `Story posted ${new Date(s.posted_at).toISOString().slice(0, 16).replace("T", " ")} UTC${s.error_message ? ` — ${s.error_message}` : ""}`,
        ),
        action: FIXES.viewBackups,
      });
      if (r.created) sent++;
    } catch (err) {
      // Not told: let the next check try again.
      await repo.unmark(
        "story-lost",
        fresh.map((s) => s.post_id),
      );
      throw err;
    }
  }
  return sent;
}

export const storiesAlert = defineAlert({
  kind,
  check: { name: "lost_stories", run: lostStories },
});
