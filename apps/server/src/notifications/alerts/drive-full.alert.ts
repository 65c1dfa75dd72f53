import { CAUSES, FIXES } from "../../health/index.ts";
import { day } from "../alert-words.ts";
import { alertKind, defineAlert } from "./define.ts";

/**
 * Google Drive refused a backup for want of space (the backups area's `drive_full` outcome):
 * one alert a day at most, one open at a time; resolved once Drive takes a backup again.
 */
const kind = alertKind("alert_drive_full", "alert-drive-full", {
  label: "Google Drive full",
  why: "You are receiving this e-mail because your Google Drive has no room for your backups.",
  setting: {
    label: "Google Drive full",
    description: "Your Drive has no room left for backups.",
  },
});

export const driveFullCause = (userId: string) => `drive-full:${userId}`;

export const driveFullAlert = defineAlert({
  kind,
  hooks: {
    async backupFailed(f, ctx) {
      if (f.reason !== "drive_full") return;
      const owner = await ctx.sources.accountOwner(f.accountId);
      if (!owner) return;
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
      if ((await ctx.sources.completedSince(a.user_id, new Date(a.created_at))) > 0)
        fixed.push(a.cause);
    }
    return fixed;
  },
});
