import { DESTINATION_LABELS, isDestinationKind } from "@keepsake/contracts";
import { fullDestination } from "../../backups/index.ts";
import { CAUSES, FIXES } from "../../health/index.ts";
import { day } from "../alert-words.ts";
import { alertKind, defineAlert } from "./define.ts";

/**
 * Google Drive refused a backup for want of space (the backups area's `drive_full` outcome), or
 * Dropbox, OneDrive or the S3 storage did (`dropbox_full`…, worded with its name and fix): one
 * alert a day at most per destination, one open at a time; resolved once a backup completes.
 */
const kind = alertKind("alert_drive_full", "alert-drive-full", {
  label: "Storage full",
  why: "You are receiving this e-mail because your storage (Google Drive, Dropbox, OneDrive or S3) has no room for your backups.",
  setting: {
    label: "Storage full",
    description: "Your Google Drive, Dropbox, OneDrive or S3 storage has no room left for backups.",
  },
});

export const driveFullCause = (userId: string) => `drive-full:${userId}`;
/** Another destination's (under the same prefix, so its resolution is the same). */
export const destinationFullCause = (userId: string, kind: string) =>
  `drive-full:${kind}:${userId}`;

/** The words of the alert for a destination other than Drive. */
function otherFull(kind: "dropbox" | "onedrive" | "s3") {
  const label = DESTINATION_LABELS[kind];
  const fix = FIXES.destinationStorage(kind);
  return {
    title: `Your ${label} is full: backups are on hold`,
    paragraphs: [
      CAUSES.destinationFull(kind),
      kind === "s3"
        ? "Delete objects in the bucket or raise its quota with your storage provider, then press Retry on the Backups page — or wait for the next automatic sync, which tries again."
        : `${fix.label}: delete files in ${label} (or add storage to your plan), then press Retry on the Backups page — or wait for the next automatic sync, which tries again.`,
    ],
    action: fix,
  };
}

export const driveFullAlert = defineAlert({
  kind,
  hooks: {
    async backupFailed(f, ctx) {
      const full = fullDestination(f.reason);
      if (!full) return;
      const owner = await ctx.sources.accountOwner(f.accountId);
      if (!owner) return;
      if (full !== "google_drive") {
        await ctx.notify(owner.user_id, {
          key: `alert:drive-full:${full}:${owner.user_id}:${day(ctx.clock.now())}`,
          cause: destinationFullCause(owner.user_id, full),
          kind,
          ...otherFull(full),
        });
        return;
      }
      await ctx.notify(owner.user_id, {
        key: `alert:drive-full:${owner.user_id}:${day(ctx.clock.now())}`,
        cause: driveFullCause(owner.user_id),
        kind,
        title: "Your Google Drive is full: backups are on hold",
        paragraphs: [
          CAUSES.driveFull,
          `${FIXES.driveStorage.label}: delete files in Google Drive (or add storage with Google One), then press Retry on the Backups page — or wait for the next automatic sync, which tries again.`,
        ],
        action: FIXES.driveStorage,
      });
    },
  },
  async fixed(ctx) {
    const fixed: string[] = [];
    for (const a of await ctx.openAlerts("drive-full:")) {
      const since = new Date(a.created_at);
      // `drive-full:<kind>:<user>`: over once that destination took a backup.
      const [, kind, user] = a.cause.split(":");
      if (user && kind && isDestinationKind(kind) && ctx.sources.lastCompletedBy) {
        const took = (await ctx.sources.lastCompletedBy(a.user_id))[kind];
        if (took && +took >= +since) fixed.push(a.cause);
        continue;
      }
      if ((await ctx.sources.completedSince(a.user_id, since)) > 0) fixed.push(a.cause);
    }
    return fixed;
  },
});
