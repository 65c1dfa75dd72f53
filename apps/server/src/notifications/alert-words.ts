import { createHash } from "node:crypto";

const DAY_MS = 24 * 3600 * 1000;

/** Words and dates the alerts use (the causes' words are the health state's: health.words.ts). */

export { dateWords, plural } from "../health/index.ts";

export const day = (d: Date) => d.toISOString().slice(0, 10);

export const shortHash = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

/** ISO week of a date, e.g. "2026-W48". */
export function isoWeek(d: Date): string {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const dow = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - dow);
  const yearStart = new Date(Date.UTC(t.getUTCFullYear(), 0, 1));
  const week = Math.ceil(((t.getTime() - yearStart.getTime()) / DAY_MS + 1) / 7);
  return `${t.getUTCFullYear()}-W${String(week).padStart(2, "0")}`;
}

export function bytesWords(n: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(1)} ${units[i]}`;
}
