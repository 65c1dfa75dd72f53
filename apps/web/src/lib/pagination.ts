/** SPEC §9: 36 posts per page, at most 7 page buttons. */
export const POSTS_PAGE_SIZE = 36;
export const MAX_PAGE_BUTTONS = 7;

/**
 * Pages for `total` items. When the total is only a lower bound (`exact` false: a caption
 * search counts so far), there is at least one page more.
 */
export function pageCount(total: number, pageSize: number = POSTS_PAGE_SIZE, exact = true): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / pageSize) + (exact ? 0 : 1));
}

/**
 * The page numbers to show as buttons: at most `max`, a window that contains `current`,
 * centred on it where possible and shifted at either end so it stays `max` wide.
 * pageWindow(1, 20) → 1..7; pageWindow(10, 20) → 7..13; pageWindow(20, 20) → 14..20.
 */
export function pageWindow(current: number, totalPages: number, max = MAX_PAGE_BUTTONS): number[] {
  const pages = Math.max(0, Math.floor(totalPages));
  if (pages === 0) return [];
  const size = Math.min(max, pages);
  const page = Math.min(Math.max(1, Math.floor(current)), pages);
  let first = page - Math.floor((size - 1) / 2);
  first = Math.max(1, Math.min(first, pages - size + 1));
  return Array.from({ length: size }, (_, i) => first + i);
}
