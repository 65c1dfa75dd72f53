import { type ArchiveCounters, archiveCounters } from "@keepsake/contracts";
import type { GraphMediaType, GraphProductType } from "../sync/tables.ts";

/** One row of the stats CSV as the archive's repository reads it. */
export interface StatsCsvRow extends ArchiveCounters {
  account_id: string;
  instagram_id: string;
  posted_at: Date;
  gone_detected_at: Date | null;
  post_id: string | null;
  media_type: GraphMediaType | null;
  media_product_type: GraphProductType | null;
  caption: string | null;
  permalink: string | null;
  at: Date | null;
  reason: string | null;
}

/** The same columns for both views: a post, then one reading (the latest in the snapshot). */
export const STATS_CSV_HEADER = [
  "account",
  "post_id",
  "instagram_id",
  "type",
  "posted_at",
  "caption",
  "permalink",
  "read_at",
  "reading",
  ...archiveCounters,
  "on_instagram",
  "gone_detected_at",
] as const;

const READING: Record<string, string> = {
  backup: "at backup",
  day_1: "1 day after posting",
  day_7: "7 days after posting",
  day_30: "30 days after posting",
  walk: "weekly check",
};

/** The post's type as the grid says it. */
export function postTypeWord(
  mediaType: GraphMediaType | null,
  productType: GraphProductType | null,
): string {
  if (productType === "REELS") return "reel";
  if (mediaType === "VIDEO") return "video";
  if (mediaType === "CAROUSEL_ALBUM") return "carousel";
  return mediaType === "IMAGE" ? "photo" : "";
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/**
 * One CSV cell (RFC 4180): quoted when it holds a quote, a comma or a line break. A text
 * beginning with =, +, - or @ (a spreadsheet would run it as a formula) is prefixed with '.
 */
export function csvCell(v: string | number | null): string {
  if (v === null) return "";
  if (typeof v === "number") return String(v);
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The stats CSV: `history` has one row per post per reading (oldest reading first), `snapshot`
 * one row per post with its latest reading; posts newest first, the account by its username.
 */
export function statsCsv(rows: StatsCsvRow[], names: Map<string, string>): string {
  const lines = rows.map((r) =>
    [
      names.get(r.account_id) ?? r.account_id,
      r.post_id,
      r.instagram_id,
      postTypeWord(r.media_type, r.media_product_type),
      iso(r.posted_at),
      r.caption,
      r.permalink,
      iso(r.at),
      r.reason ? (READING[r.reason] ?? r.reason) : null,
      ...archiveCounters.map((c) => r[c]),
      r.gone_detected_at ? "no" : "yes",
      iso(r.gone_detected_at),
    ]
      .map(csvCell)
      .join(","),
  );
  return `${[STATS_CSV_HEADER.join(","), ...lines].join("\r\n")}\r\n`;
}
