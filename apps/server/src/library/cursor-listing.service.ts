import type {
  V1BackupsQuery,
  V1BackupsResponse,
  V1PostsQuery,
  V1PostsResponse,
} from "@keepsake/contracts";
import { AppError } from "../lib/errors.ts";
import { toBackup, toPost } from "../sync/index.ts";
import type { CursorListingRepository, Keyset } from "./cursor-listing.repository.ts";
import { postFilter } from "./post-filter.ts";

/** A timestamptz as Postgres writes it as text, e.g. `2026-01-02 03:04:05.123456+00`. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:?\d{2})?|Z)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An opaque cursor: the keyset of a page's last row, base64url JSON. */
export function encodeCursor(k: Keyset): string {
  return Buffer.from(JSON.stringify([k.at, k.id])).toString("base64url");
}

export function decodeCursor(cursor: string | undefined): Keyset | null {
  if (!cursor) return null;
  const invalid = () => new AppError("invalid", "cursor is not a cursor this API gave out");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalid();
  const [at, id] = parsed as unknown[];
  if (typeof at !== "string" || typeof id !== "string" || !UUID.test(id)) throw invalid();
  if (!TIMESTAMP.test(at)) throw invalid();
  return { at, id };
}

/** The public API's pages of posts and backups, scoped to the caller. */
export function createCursorListingService(deps: {
  repo: Pick<CursorListingRepository, "postsAfter" | "backupsAfter">;
}) {
  const { repo } = deps;
  /** One row more than asked tells whether another page follows. */
  const next = <T extends { keyset: Keyset }>(rows: T[], limit: number) => {
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { page, cursor: rows.length > limit && last ? encodeCursor(last.keyset) : null };
  };

  return {
    async posts(userId: string, q: V1PostsQuery): Promise<V1PostsResponse> {
      const filter = postFilter(userId, q);
      const rows = await repo.postsAfter(filter, q.limit + 1, decodeCursor(q.cursor));
      const { page, cursor } = next(rows, q.limit);
      return {
        posts: page.map((r) => toPost(r, { status: r.backup_status })),
        next_cursor: cursor,
      };
    },

    async backups(userId: string, q: V1BackupsQuery): Promise<V1BackupsResponse> {
      const filter = { status: q.status, accountId: q.account_id };
      const rows = await repo.backupsAfter(userId, filter, q.limit + 1, decodeCursor(q.cursor));
      const { page, cursor } = next(rows, q.limit);
      return { backups: page.map(toBackup), next_cursor: cursor };
    },
  };
}

export type CursorListingService = ReturnType<typeof createCursorListingService>;
