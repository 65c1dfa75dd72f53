import type { PostMediaType } from "@keepsake/contracts";
import { FROM_API_TYPE } from "../sync/index.ts";
import type { PostFilter } from "./listing.repository.ts";

/** The posts filter of a query (the grid and /api/v1 read the same fields). */
export const postFilter = (
  userId: string,
  q: {
    account_id?: string | undefined;
    media_type?: PostMediaType | undefined;
    search?: string | undefined;
  },
): PostFilter => ({
  userId,
  accountId: q.account_id,
  mediaType: q.media_type ? FROM_API_TYPE[q.media_type] : undefined,
  search: q.search,
});
