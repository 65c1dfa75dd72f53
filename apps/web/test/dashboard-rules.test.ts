import { describe, expect, it } from "vitest";
import { formatBytes } from "../src/lib/format.ts";
import { pageCount, pageWindow } from "../src/lib/pagination.ts";
import { hasNewOrUnbacked } from "../src/pages/dashboard/new-posts-banner.tsx";
import { mediaTypeLabel, postBadge } from "../src/pages/dashboard/post-badge.ts";
import { progressPercent } from "../src/pages/dashboard/running-job-card.tsx";
import { isAutoSyncTier, nextSyncText } from "../src/pages/dashboard/tier-state.tsx";
import { progressText } from "../src/pages/dashboard/use-manual-backup.ts";

describe("byte formatter (Storage Used)", () => {
  it("uses Bytes, KB, MB and GB with at most two decimals", () => {
    expect(formatBytes(0)).toBe("0 Bytes");
    expect(formatBytes(1)).toBe("1 Bytes");
    expect(formatBytes(1023)).toBe("1023 Bytes");
    expect(formatBytes(1024)).toBe("1 KB");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(1024 * 1024 - 1)).toBe("1024 KB");
    expect(formatBytes(1024 * 1024)).toBe("1 MB");
    expect(formatBytes(5.25 * 1024 * 1024)).toBe("5.25 MB");
    expect(formatBytes(123_456_789)).toBe("117.74 MB");
    expect(formatBytes(3 * 1024 ** 3)).toBe("3 GB");
  });

  it("stops at GB and treats nonsense as zero", () => {
    expect(formatBytes(2 * 1024 ** 4)).toBe("2048 GB");
    expect(formatBytes(-5)).toBe("0 Bytes");
    expect(formatBytes(Number.NaN)).toBe("0 Bytes");
  });
});

describe("pagination window", () => {
  it("shows every page when there are at most 7", () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(3, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(pageWindow(7, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("keeps 7 buttons centred on the current page, shifted at either end", () => {
    expect(pageWindow(1, 20)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pageWindow(4, 20)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pageWindow(5, 20)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(pageWindow(10, 20)).toEqual([7, 8, 9, 10, 11, 12, 13]);
    expect(pageWindow(17, 20)).toEqual([14, 15, 16, 17, 18, 19, 20]);
    expect(pageWindow(20, 20)).toEqual([14, 15, 16, 17, 18, 19, 20]);
  });

  it("clamps an out-of-range page and handles no pages", () => {
    expect(pageWindow(99, 8)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(pageWindow(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pageWindow(1, 0)).toEqual([]);
  });

  it("counts pages of 36 posts", () => {
    expect(pageCount(0)).toBe(1);
    expect(pageCount(36)).toBe(1);
    expect(pageCount(37)).toBe(2);
    expect(pageCount(10_000)).toBe(278);
  });
});

describe("post tile badge (SPEC §4)", () => {
  it("is 'backed up' when completed or is_backed_up", () => {
    expect(
      postBadge({ backup_status: "completed", is_backed_up: false, not_backed_up_reason: null })
        .label,
    ).toBe("backed up");
    expect(
      postBadge({ backup_status: null, is_backed_up: true, not_backed_up_reason: null }).label,
    ).toBe("backed up");
    expect(
      postBadge({ backup_status: "failed", is_backed_up: true, not_backed_up_reason: null }).label,
    ).toBe("backed up");
  });

  it("is 'in progress' when processing or pending", () => {
    expect(
      postBadge({ backup_status: "processing", is_backed_up: false, not_backed_up_reason: null })
        .label,
    ).toBe("in progress");
    expect(
      postBadge({ backup_status: "pending", is_backed_up: false, not_backed_up_reason: null })
        .label,
    ).toBe("in progress");
  });

  it("is 'pending backup' otherwise", () => {
    expect(
      postBadge({ backup_status: null, is_backed_up: false, not_backed_up_reason: null }).label,
    ).toBe("pending backup");
  });

  it("says when Instagram does not give out the media (not a failure, not pending)", () => {
    const badge = postBadge({
      backup_status: "unavailable",
      is_backed_up: false,
      not_backed_up_reason: "Not available from Instagram: …",
    });
    expect(badge).toMatchObject({ kind: "unavailable", label: "not available from Instagram" });
  });

  it("labels media types Photo, Video, Album", () => {
    expect(mediaTypeLabel("image")).toBe("Photo");
    expect(mediaTypeLabel("video")).toBe("Video");
    expect(mediaTypeLabel("carousel")).toBe("Album");
  });
});

describe("tier state and progress wording", () => {
  it("automatic tiers are premium, pro and agency", () => {
    expect(["free", "premium", "pro", "agency"].map(isAutoSyncTier)).toEqual([
      false,
      true,
      true,
      true,
    ]);
  });

  it("words the minutes until the next sync", () => {
    expect(nextSyncText(7)).toBe("Next sync in 7 minutes");
    expect(nextSyncText(1)).toBe("Next sync in 1 minute");
    expect(nextSyncText(0)).toBe("Next sync in less than a minute");
    expect(nextSyncText(null)).toBeNull();
  });

  it("words the server's progress as the running card does", () => {
    expect(progressText(null)).toBe("Starting sync...");
    expect(progressText(undefined)).toBe("Starting sync...");
    expect(progressText({ processed: 0, total: 0 })).toBe("Starting sync...");
    expect(progressText({ processed: 3, total: 12 })).toBe("Processing 3 of 12 posts...");
    expect(progressPercent({ processed: 3, total: 12 })).toBe(25);
    expect(progressPercent({ processed: 0, total: 0 })).toBe(0);
    expect(progressPercent(null)).toBe(0);
  });

  it("shows the banner for new or unbacked posts only", () => {
    const none = {
      has_new_posts: false,
      new_posts_count: 0,
      unbacked_posts_count: 0,
      failed_backups_count: 0,
      upgrade_message: null,
    };
    expect(hasNewOrUnbacked(undefined)).toBe(false);
    expect(hasNewOrUnbacked(none)).toBe(false);
    expect(hasNewOrUnbacked({ ...none, has_new_posts: true, new_posts_count: 2 })).toBe(true);
    expect(hasNewOrUnbacked({ ...none, unbacked_posts_count: 1 })).toBe(true);
  });
});
