import type { DashboardStats, SyncHealth, SyncJob } from "@keepsake/contracts";
import { DESTINATION_LABELS, type DestinationKind } from "@keepsake/contracts/destination-kinds";
import { formatCount } from "./format.ts";
import { planFor } from "./plans.ts";

const plural = (n: number, one: string, many: string) =>
  `${formatCount(n)} ${n === 1 ? one : many}`;

/** How many posts the plan's post limit leaves out of Drive, or null when none (SPEC §9). */
export function overLimitText(
  stats: Pick<DashboardStats, "posts_over_limit" | "post_limit">,
  tier: string,
): string | null {
  const n = stats.posts_over_limit;
  if (n <= 0 || stats.post_limit === null) return null;
  return `${plural(n, "older post is", "older posts are")} beyond your ${planFor(tier).name} plan's ${formatCount(stats.post_limit)}-post limit and not backed up. Upgrade to back ${n === 1 ? "it" : "them"} up.`;
}

/** Posts in Drive beyond the plan's newest N: backed up before the limit left them out. */
function keptBeyond(stats: Pick<DashboardStats, "backed_up_posts" | "post_limit">): string {
  const extra = stats.post_limit === null ? 0 : stats.backed_up_posts - stats.post_limit;
  return extra > 0
    ? ` (${plural(extra, "older one", "older ones")} from before your plan's ${formatCount(stats.post_limit ?? 0)}-post limit stay there)`
    : "";
}

/** "your Google Drive", "your Dropbox", "your Google Drive and Dropbox": where the posts are. */
function whereText(destinations: readonly DestinationKind[]): string {
  const labels = [...new Set(destinations.length ? destinations : ["google_drive" as const])].map(
    (d) => DESTINATION_LABELS[d],
  );
  const last = labels.pop();
  return `your ${labels.length ? `${labels.join(", ")} and ${last}` : last}`;
}

/**
 * Where the accounts' backups are, as a sentence says it: "your Google Drive" unless the health
 * state lists other destinations the accounts use (issue 38): "your Dropbox", or each named.
 */
export function storageWords(health: Pick<SyncHealth, "destinations"> | null): string {
  return whereText((health?.destinations ?? []).map((d) => d.kind));
}

/**
 * What a finished backup run did, from the server's numbers: the completion toast. A run that
 * found nothing to do says so instead of claiming a backup; failures name their cause from the
 * health state (a broken connection is fixed by reconnecting, not by retrying); where the posts
 * are is the health state's destinations (issue 38), Google Drive when it is not known.
 */
export function backupDoneText(
  job: (Pick<SyncJob, "posts_processed"> & Partial<Pick<SyncJob, "posts_failed">>) | null,
  stats: DashboardStats | null,
  tier: string,
  health: SyncHealth | null = null,
): string {
  const failed = Math.max(stats?.failed_backups ?? 0, job?.posts_failed ?? 0);
  const broken = health && health.state === "broken" ? health.cause : null;
  const head =
    failed > 0
      ? "Backup finished with errors."
      : job && job.posts_processed === 0
        ? "No new posts to back up."
        : "Backup completed successfully!";
  const failure =
    failed > 0
      ? `${plural(failed, "backup", "backups")} failed: ${broken ?? "retry on the Backups page."}`
      : null;
  if (!stats) return failure ? `${head} ${failure}` : head;
  return [
    head,
    `${plural(stats.backed_up_posts, "post is", "posts are")} in ${storageWords(health)}${keptBeyond(stats)}.`,
    failure,
    overLimitText(stats, tier),
  ]
    .filter(Boolean)
    .join(" ");
}

/**
 * SPEC §4 completed-card wording, and what a refresh-only run did. A run whose backups failed
 * is never "Successfully processed" (issue 36).
 */
export function completedJobText(
  job: Pick<SyncJob, "mode" | "posts_processed"> & Partial<Pick<SyncJob, "posts_failed">>,
): string {
  const failed = job.posts_failed ?? 0;
  if (failed > 0) {
    const saved = job.posts_processed - failed;
    return saved > 0
      ? `${plural(saved, "post", "posts")} backed up, ${plural(failed, "backup", "backups")} failed.`
      : `All ${plural(failed, "backup", "backups")} failed.`;
  }
  if (job.mode === "refresh") {
    return job.posts_processed > 0
      ? `Refreshed ${plural(job.posts_processed, "post", "posts")} from Instagram. Nothing was backed up yet: start a backup to copy them to Drive.`
      : "Refreshed your posts from Instagram: nothing new.";
  }
  return job.posts_processed > 0
    ? `Successfully processed ${job.posts_processed} posts`
    : "No new posts to process";
}

/** A running refresh-only job (it lists posts and backs up nothing). */
export const REFRESHING = "Refreshing posts from Instagram...";
