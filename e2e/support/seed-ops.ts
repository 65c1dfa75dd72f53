import type { SubscriptionTier } from "@keepsake/contracts";
import type { Db } from "../../apps/server/src/db/database.ts";
import { createNotificationsRepository } from "../../apps/server/src/notifications/notifications.repository.ts";
import { rowFactories } from "../../apps/server/test/support/factories.ts";
import { emptyAllBut } from "./empty-all-but.ts";
import { statusSeedOps } from "./seed-status.ts";

/**
 * The rows an end-to-end test sets up (or reads) behind the product's back, as typed operations
 * over the server's row factories. `seed()` (flows.ts) runs one by name in the seeder (seeder.ts)
 * and answers what it returns.
 */
export const seedOps = {
  emptyAllBut,

  /** The user's plan and flags, as an administrator or Stripe would have set them. */
  async setUser(
    db: Db,
    a: { email: string; tier?: SubscriptionTier; isAdmin?: boolean; verified?: boolean },
  ): Promise<void> {
    await rowFactories(db).auth.updateUserByEmail(a.email, {
      ...(a.tier ? { subscription_tier: a.tier } : {}),
      ...(a.isAdmin !== undefined ? { is_admin: a.isAdmin } : {}),
      ...(a.verified !== undefined ? { email_verified_at: a.verified ? new Date() : null } : {}),
    });
  },

  /** Time passing for the archive: the last walks `days` back, the misses `hours` back. */
  async ageArchive(db: Db, a: { walkDays?: number; missHours?: number }): Promise<void> {
    const archive = rowFactories(db).archive;
    if (a.walkDays) await archive.ageWalks(a.walkDays);
    if (a.missHours) await archive.ageMisses(a.missHours);
  },

  /** What the archive knows of a post: missed by a walk, judged gone (null: never seen). */
  postPresence(db: Db, a: { instagramId: string }) {
    return rowFactories(db).archive.presenceOf(a.instagramId);
  },

  /** One more Instagram account like `fromUsername`'s (its owner and token). */
  async copyInstagramAccount(
    db: Db,
    a: { fromUsername: string; instagramUserId: string; username: string },
  ): Promise<void> {
    await rowFactories(db).connections.copyInstagramAccount(
      { username: a.fromUsername },
      { instagram_user_id: a.instagramUserId, username: a.username },
    );
  },

  /** An account with one post per backup given (captions numbered), each backup 1.5 MB. */
  async accountWithBackups(
    db: Db,
    a: {
      email: string;
      instagramUserId: string;
      username: string;
      postPrefix: string;
      caption: string;
      backups: {
        status: "completed" | "failed";
        errorMessage?: string;
        mediaType?: "IMAGE" | "VIDEO" | "CAROUSEL_ALBUM";
        /** Judged no longer on Instagram by the archive's walks. */
        gone?: boolean;
      }[];
    },
  ): Promise<void> {
    const rows = rowFactories(db);
    const userId = await rows.auth.userIdByEmail(a.email);
    const account = await rows.connections.insertInstagramAccount({
      user_id: userId,
      instagram_user_id: a.instagramUserId,
      connected_via: "instagram",
      username: a.username,
      access_token_encrypted: "not-a-token",
      token_issued_at: new Date(),
    });
    for (const [i, b] of a.backups.entries()) {
      const [post] = await rows.sync.insertPosts([
        {
          user_id: userId,
          account_id: account.id,
          instagram_id: `${a.postPrefix}${i + 1}`,
          media_type: b.mediaType ?? "IMAGE",
          media_product_type: "FEED",
          caption: `${a.caption} ${i + 1}`,
          posted_at: new Date("2026-03-05T12:00:00Z"),
          like_count: 1,
        },
      ]);
      if (b.gone) {
        const missed = new Date("2026-03-20T12:00:00Z");
        await db
          .insertInto("post_presence")
          .values({
            account_id: account.id,
            instagram_id: `${a.postPrefix}${i + 1}`,
            user_id: userId,
            posted_at: new Date("2026-03-05T12:00:00Z"),
            last_seen_at: new Date("2026-03-18T12:00:00Z"),
            first_missed_at: missed,
            last_missed_at: missed,
            gone_detected_at: missed,
          })
          .execute();
      }
      await rows.backups.insertBackups([
        {
          post_id: post?.id as string,
          user_id: userId,
          account_id: account.id,
          status: b.status,
          backup_size_bytes: 1572864,
          completed_at: new Date("2026-03-06T12:00:00Z"),
          error_message: b.errorMessage ?? null,
        },
      ]);
    }
  },

  /** One entry in the user's notification bell, with the link to its fix. */
  async notification(
    db: Db,
    a: { email: string; key: string; title: string; body: string; action?: [string, string] },
  ): Promise<void> {
    const userId = await rowFactories(db).auth.userIdByEmail(a.email);
    await createNotificationsRepository(db).insert(
      {
        user_id: userId,
        event_key: a.key,
        category: "alert_connection",
        title: a.title,
        body: a.body,
        action_label: a.action?.[0] ?? null,
        action_path: a.action?.[1] ?? null,
        cause: null,
      },
      new Date(),
    );
  },

  /**
   * An account whose posts are in Drive: each with its caption and permalink, and for those
   * from the API, the readings given (days before now, oldest first) as the archive took them;
   * an imported one (source "export") has none. Its likes and comments as a sync last listed
   * them differ from the latest reading (the archive's cadence is what Keepsake shows).
   */
  async postsWithReadings(
    db: Db,
    a: {
      email: string;
      instagramUserId: string;
      username: string;
      posts: {
        instagramId: string;
        caption: string;
        permalink: string | null;
        source: "api" | "export";
        daysOld: number;
        readings: { daysAgo: number; likes: number; comments: number; views: number }[];
      }[];
    },
  ): Promise<void> {
    const rows = rowFactories(db);
    const userId = await rows.auth.userIdByEmail(a.email);
    const account = await rows.connections.insertInstagramAccount({
      user_id: userId,
      instagram_user_id: a.instagramUserId,
      connected_via: "instagram",
      username: a.username,
      access_token_encrypted: "not-a-token",
      token_issued_at: new Date(),
    });
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000);
    for (const p of a.posts) {
      const [post] = await rows.sync.insertPosts([
        {
          user_id: userId,
          account_id: account.id,
          instagram_id: p.instagramId,
          media_type: "IMAGE",
          media_product_type: "FEED",
          caption: p.caption,
          permalink: p.permalink,
          posted_at: ago(p.daysOld),
          like_count: 1,
          comments_count: 1,
          source: p.source,
        },
      ]);
      await rows.backups.insertBackups([
        {
          post_id: post?.id as string,
          user_id: userId,
          account_id: account.id,
          status: "completed",
          backup_size_bytes: 1572864,
          completed_at: ago(p.daysOld),
        },
      ]);
      if (p.source === "export") continue;
      await rows.archive.insertPresence([
        {
          account_id: account.id,
          instagram_id: p.instagramId,
          user_id: userId,
          posted_at: ago(p.daysOld),
          last_seen_at: new Date(),
        },
      ]);
      const reasons = ["backup", "day_1", "day_7", "day_30", "walk", "walk"] as const;
      await rows.archive.insertReadings(
        p.readings.map((r, i) => ({
          account_id: account.id,
          instagram_id: p.instagramId,
          at: ago(r.daysAgo),
          reason: reasons[Math.min(i, reasons.length - 1)] ?? "walk",
          likes: r.likes,
          comments: r.comments,
          views: r.views,
          saves: null,
          shares: null,
          reposts: null,
        })),
      );
    }
  },

  /**
   * An account with posts in every state (issue 36's counts): each entry of `states` is one
   * post, newest first; "beyond" posts are left out by the plan's limit (no backup, or a
   * completed one from before). The profile counts them all and was read just now. `drive`:
   * a Google Drive is connected too (its tokens are never used: nothing is queued). `run`: a
   * manual backup run is going on (its heartbeat now) and holds the backups of the posts at
   * these indices, its own counters settled from them (how many it holds, how many ended).
   */
  async accountInStates(
    db: Db,
    a: {
      email: string;
      instagramUserId: string;
      username: string;
      states: ("completed" | "failed" | "pending" | "listed" | "beyond" | "beyond-completed")[];
      drive?: boolean;
      run?: number[];
    },
  ): Promise<{ accountId: string }> {
    const rows = rowFactories(db);
    const userId = await rows.auth.userIdByEmail(a.email);
    if (a.drive) {
      await db
        .insertInto("google_connections")
        .values({
          user_id: userId,
          google_sub: `sub-${a.instagramUserId}`,
          google_email: `${a.username}@example.com`,
          scopes: "https://www.googleapis.com/auth/drive.file",
          refresh_token_encrypted: "not-a-token",
          access_token_encrypted: null,
          access_token_expires_at: null,
          root_folder_id: null,
          status_reason: null,
          last_validated_at: new Date(),
        })
        .execute();
    }
    const account = await rows.connections.insertInstagramAccount({
      user_id: userId,
      instagram_user_id: a.instagramUserId,
      connected_via: "instagram",
      username: a.username,
      access_token_encrypted: "not-a-token",
      token_issued_at: new Date(),
      last_validated_at: new Date(Date.now() + 3600_000),
      media_count: a.states.length,
    });
    const run = a.run
      ? await rows.sync.insertSyncJob({
          user_id: userId,
          account_id: account.id,
          job_type: "manual",
          mode: "backup",
          status: "running",
          started_at: new Date(),
          heartbeat_at: new Date(),
        })
      : null;
    let held = 0;
    let ended = 0;
    for (const [i, state] of a.states.entries()) {
      const beyond = state.startsWith("beyond");
      const [post] = await rows.sync.insertPosts([
        {
          user_id: userId,
          account_id: account.id,
          instagram_id: `${a.username}-${i + 1}`,
          media_type: "IMAGE",
          media_product_type: "FEED",
          caption: `${state} ${i + 1}`,
          posted_at: new Date(Date.UTC(2026, 2, 30 - i, 12)),
          like_count: 1,
          not_backed_up_reason: beyond ? "Beyond your plan's 100-post limit" : null,
        },
      ]);
      const byState: Record<string, "completed" | "failed" | "pending" | undefined> = {
        completed: "completed",
        "beyond-completed": "completed",
        failed: "failed",
        pending: "pending",
      };
      const status = byState[state];
      if (!status) continue;
      await rows.backups.insertBackups([
        {
          post_id: post?.id as string,
          user_id: userId,
          account_id: account.id,
          status,
          backup_size_bytes: status === "completed" ? 1000 : null,
          completed_at: status === "completed" ? new Date() : null,
          error_message: status === "failed" ? "Backup failed after 4 attempts" : null,
          sync_job_id: run && a.run?.includes(i) ? run.id : null,
        },
      ]);
      if (run && a.run?.includes(i)) {
        held++;
        if (status !== "pending") ended++;
      }
    }
    if (run) {
      await db
        .updateTable("sync_jobs")
        .set({ posts_total: held, posts_processed: ended })
        .where("id", "=", run.id)
        .execute();
    }
    return { accountId: account.id };
  },

  ...statusSeedOps,
} satisfies Record<string, (db: Db, args: never, env: SeedEnv) => Promise<unknown>>;

/** What a seed operation may use besides the database: the database's URL (for the queue). */
export interface SeedEnv {
  url: string;
}

export type SeedOps = typeof seedOps;
