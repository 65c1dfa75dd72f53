const BYTE_UNITS = ["Bytes", "KB", "MB", "GB"] as const;

/**
 * SPEC §2 "Storage Used": bytes in Bytes, KB, MB or GB (1 KB = 1024 bytes), at most two
 * decimals, trailing zeros dropped: 0 → "0 Bytes", 1536 → "1.5 KB", 5 GiB → "5 GB".
 * GB is the largest unit, so a terabyte reads "1024 GB".
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return "0 Bytes";
  const exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), BYTE_UNITS.length - 1);
  const value = bytes / 1024 ** exponent;
  const rounded = exponent === 0 ? Math.round(value) : Number.parseFloat(value.toFixed(2));
  return `${rounded} ${BYTE_UNITS[exponent]}`;
}

/** "Mar 5, 2026" in the browser's locale conventions (en-US wording). */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "-";
  return date.toLocaleDateString("en-US", { year: "numeric", month: "short", day: "numeric" });
}

/** 1234 → "1,234". */
export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

/** SPEC §3: timestamps as a local date-time, or "-" when absent or unreadable. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "-";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "-" : date.toLocaleString();
}
