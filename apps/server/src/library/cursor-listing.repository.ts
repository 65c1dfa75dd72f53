import { type Kysely, sql } from "kysely";
import type { BackupRow } from "../backups/tables.ts";
import type { Database } from "../db/schema.ts";
import type { PostRow } from "../sync/tables.ts";
import {
  type BackupFilter,
  type BackupWithPost,
  listingQueries,
  type PostFilter,
  type PostWithBackup,
} from "./listing.repository.ts";

/**
 * Keyset pages for the public API: a page starts after the (timestamp, id) of the previous
 * page's last row, so rows inserted meanwhile never shift or repeat a page. The timestamp
 * travels as Postgres text, keeping its microseconds.
 */
export interface Keyset {
  at: string;
  id: string;
}

export function cursorListingQueries(db: Kysely<Database>) {
  const { matchingPosts } = listingQueries(db);

  return {
    /** Posts newest first (posted_at desc, id asc, the grid's order) after `after`. */
    async postsAfter(
      f: PostFilter,
      limit: number,
      after: Keyset | null,
    ): Promise<(PostWithBackup & { keyset: Keyset })[]> {
      let page = matchingPosts(f).select("id");
      if (after) {
        page = page.where(
          sql<boolean>`(posted_at < ${after.at}::timestamptz OR (posted_at = ${after.at}::timestamptz AND id > ${after.id}::uuid))`,
        );
      }
      const ids = page.orderBy("posted_at", "desc").orderBy("id").limit(limit);
      const rows = await db
        .selectFrom(ids.as("page"))
        .innerJoin("posts as p", "p.id", "page.id")
        .leftJoin("backups as b", "b.post_id", "p.id")
        .selectAll("p")
        .select([
          "b.status as backup_status",
          "b.error_message as backup_error",
          sql<string>`p.posted_at::text`.as("keyset_at"),
        ])
        .orderBy("p.posted_at", "desc")
        .orderBy("p.id")
        .execute();
      return rows.map(({ keyset_at, ...r }) => ({
        ...(r as unknown as PostWithBackup),
        keyset: { at: keyset_at, id: r.id },
      }));
    },

    /** Backups newest first (created_at desc, id desc) after `after`, each with its post. */
    async backupsAfter(
      userId: string,
      f: BackupFilter,
      limit: number,
      after: Keyset | null,
    ): Promise<(BackupWithPost & { keyset: Keyset })[]> {
      let page = db.selectFrom("backups").select("id").where("user_id", "=", userId);
      if (f.accountId) page = page.where("account_id", "=", f.accountId);
      if (f.status) page = page.where("status", "=", f.status);
      if (after) {
        page = page.where(
          sql<boolean>`(created_at, id) < (${after.at}::timestamptz, ${after.id}::uuid)`,
        );
      }
      const ids = page.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit);
      const rows = await db
        .selectFrom(ids.as("page"))
        .innerJoin("backups as b", "b.id", "page.id")
        .innerJoin("posts as p", "p.id", "b.post_id")
        .selectAll("b")
        .select([
          sql<PostRow>`to_jsonb(p)`.as("post_json"),
          sql<string>`b.created_at::text`.as("keyset_at"),
        ])
        .orderBy("b.created_at", "desc")
        .orderBy("b.id", "desc")
        .execute();
      return rows.map(({ post_json, keyset_at, ...b }) => ({
        ...(b as BackupRow),
        post: post_json,
        keyset: { at: keyset_at, id: b.id },
      }));
    },
  };
}

export type CursorListingRepository = ReturnType<typeof cursorListingQueries>;
