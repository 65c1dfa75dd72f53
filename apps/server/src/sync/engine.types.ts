import type { SyncProgress } from "@keepsake/contracts";
import type { ConnectionsRepository } from "../connections/index.ts";
import type { GraphChild, GraphMedia } from "../providers/instagram/media.client.ts";
import type { AccountsRepository } from "./account-directory.repository.ts";
import type { PostLimit } from "./posts.repository.ts";
import type { PostChild } from "./tables.ts";

/**
 * What the sync area reads of other areas' tables: accounts with their owner (accounts area),
 * the user's plan and Google Drive connection (connections area). Their repositories answer.
 */
export type SyncDirectory = Pick<AccountsRepository, "accountWithOwner" | "accountForSync"> &
  Pick<
    ConnectionsRepository,
    "userAccounts" | "userTier" | "findGoogleConnection" | "destinationState"
  >;

/**
 * What the sync area asks of the backups area, handed to it in context.ts (sync never imports
 * backups): claiming what a sync run backs up, under the plan's post limit. The claimed posts
 * then go to `enqueueBackups`.
 */
export interface BackupsForSync {
  claimBackupsForSync(
    accountId: string,
    userId: string,
    syncJobId: string,
    now: Date,
    postLimit: PostLimit,
  ): Promise<{ post_id: string; id: string; posted_at: Date }[]>;
  /**
   * The running backups' progress from the Pending count's definition (issue 36): what the
   * status poll says as "Processing X of Y posts...".
   */
  syncProgress(userId: string): Promise<SyncProgress | null>;
}

/** A job's place among its attempts, to know when a failure is final. */
export interface AttemptInfo {
  retryCount: number;
  retryLimit: number;
  /** Aborted when the worker shuts down: stop at the next safe point and let go of the claim. */
  signal?: AbortSignal;
}

/** Where the engines report what went wrong outside a request. */
export interface EngineLog {
  warn(obj: object, msg: string): void;
}

/** A carousel child as the posts table stores it. */
export const toPostChild = (c: GraphChild): PostChild => ({
  id: c.id,
  media_type: c.mediaType,
  media_url: c.mediaUrl,
  thumbnail_url: c.thumbnailUrl,
});

/**
 * What the sync tells the archive area (issue 30), wired by the composition root: each media
 * page it read, and each whole walk of the list (the archive decides when one is due).
 */
export interface SyncArchive {
  /**
   * Each media page the sync read. `walk`: whether this sync walks the whole list, or (the
   * first page of an account whose history is complete) let the archive decide; answers why
   * it walks, or null.
   */
  recordPage(
    account: { id: string; user_id: string; media_count: number | null },
    media: GraphMedia[],
    walk: boolean | { decide: true; usagePercent: number | null },
  ): Promise<{ walk: string | null }>;
  finishWalk(
    account: { id: string; user_id: string; media_count: number | null },
    walk: {
      startedAt: Date;
      seen: number;
      oldestSeen: Date | null;
      probe(instagramId: string): Promise<unknown>;
    },
  ): Promise<unknown>;
}
