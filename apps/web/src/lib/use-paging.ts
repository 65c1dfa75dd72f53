import { useCallback, useState } from "react";

/**
 * The current page of a paged list, back to page 1 whenever `resetKey` (the list's filters)
 * changes — in the same render, so the old page of the new query is never requested (SPEC §4).
 */
export function usePaging(resetKey: string): [number, (page: number) => void] {
  const [paging, setPaging] = useState({ key: resetKey, page: 1 });
  if (paging.key !== resetKey) setPaging({ key: resetKey, page: 1 });
  const page = paging.key === resetKey ? paging.page : 1;
  const setPage = useCallback((n: number) => setPaging({ key: resetKey, page: n }), [resetKey]);
  return [page, setPage];
}
