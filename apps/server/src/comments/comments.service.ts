import { createHash } from "node:crypto";
import type { DestinationKind } from "@keepsake/contracts";
import {
  type ArchivedComment,
  type CommentSetting,
  commentMessages as m,
  type PostCommentsResponse,
} from "@keepsake/contracts";
import type { BackedUpPost } from "../backups/index.ts";
import { classifyDestinationError, type Destinations } from "../destinations/index.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import {
  COMMENTS_PERMISSION,
  type CommentsClient,
} from "../providers/instagram/comments.client.ts";
import type { GraphHost } from "../providers/instagram/media.client.ts";
import { isInstagramTokenInvalid, ProviderError } from "../providers/provider-error.ts";
import { nextCommentRead } from "./cadence.ts";
import type { CommentsRepository } from "./comments.repository.ts";
import type { PostCommentsTable } from "./tables.ts";

/** What the comments area reads of other areas, through their repositories and services. */
export interface CommentsDirectory {
  /** The user's Instagram accounts. */
  userAccounts(
    userId: string,
  ): Promise<{ id: string; username: string; connected_via: GraphHost }[]>;
  account(
    accountId: string,
  ): Promise<
    { id: string; user_id: string; username: string; connected_via: GraphHost } | undefined
  >;
  post(postId: string): Promise<
    | {
        id: string;
        user_id: string;
        account_id: string;
        instagram_id: string;
        posted_at: Date;
        media_product_type: string | null;
      }
    | undefined
  >;
  backedUpPosts(accountId: string): Promise<{ post_id: string; posted_at: Date }[]>;
  sidecarOf(postId: string): Promise<
    | {
        instagram_id: string;
        permalink: string | null;
        name: string;
        drive_file_id: string | null;
        /** Where the post's backup is (its sidecar and so its comments file). */
        destination: DestinationKind;
        /** The account of that destination it is in. */
        owner: string;
      }
    | undefined
  >;
  instagramAccessToken(accountId: string): Promise<{
    token: string;
    connectedVia: GraphHost;
    instagramUserId: string;
  }>;
  /** The re-consent that grants extra permissions (the connections area's OAuth service). */
  startGrant(
    userId: string,
    via: GraphHost,
    scopes: string[],
    purpose: { kind: "comments"; username: string },
  ): Promise<{ auth_url: string }>;
}

export interface CommentsServiceDeps {
  repo: CommentsRepository;
  directory: CommentsDirectory;
  client: CommentsClient;
  /** Where the comments files go: beside each post's sidecar, in its backup's destination. */
  destinations: Pick<Destinations, "of">;
  /** The Graph pacer of the sync area: comment reads share the account's budget. */
  graph: <T>(accountKey: string, fn: () => Promise<T>) => Promise<T>;
  clock: Clock;
  /** Queues a comments read of the account (idempotent while one waits). */
  enqueue(accountId: string): Promise<void>;
  /** Posts read per job run (the job queues itself again for the rest). */
  batch?: number;
  log?: { warn(obj: object, msg: string): void };
}

/** The item tag of a post's comments file (Drive: `appProperties.keepsakeMediaId`). */
const commentsKey = (instagramId: string) => `${instagramId}_comments`;
/** The comments file's name beside the sidecar: `…_meta.json` → `…_comments.json`. */
export const commentsFileName = (metaName: string) =>
  metaName.replace(/_meta\.json$/, "_comments.json");

type Row = Pick<
  PostCommentsTable,
  "comment_id" | "parent_id" | "username" | "text" | "like_count" | "hidden"
> & { commented_at: Date; removed_at: Date | null };

/** Comments with their replies, oldest first (as a thread reads). */
export function threads(rows: Row[]): ArchivedComment[] {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  const one = (r: Row) => ({
    id: r.comment_id,
    username: r.username,
    text: r.text,
    timestamp: new Date(r.commented_at).toISOString(),
    like_count: r.like_count,
    hidden: r.hidden,
    removed_at: iso(r.removed_at),
  });
  const top = rows.filter((r) => r.parent_id === null);
  return top.map((t) => ({
    ...one(t),
    replies: rows.filter((r) => r.parent_id === t.comment_id).map(one),
  }));
}

/**
 * Comments, for the accounts whose owner opts in: the setting (and its consent), reading each
 * post's comments and replies on the cadence (cadence.ts), keeping them — a comment removed on
 * Instagram stays, marked — and writing the post's `…_comments.json` beside its sidecar.
 */
export function createCommentsService(deps: CommentsServiceDeps) {
  const { repo, directory, client, clock } = deps;
  const batch = deps.batch ?? 25;
  // The accounts that keep comments, read at most once a minute per process: a sync's hook then
  // costs no query (bench:sync counts them); a sync that misses a fresh opt-in is followed by
  // another within minutes.
  let enabledCache: { at: number; ids: Set<string> } | null = null;
  async function enabledAccounts(): Promise<Set<string>> {
    const now = clock.now().getTime();
    if (!enabledCache || now - enabledCache.at > 60_000 || now < enabledCache.at)
      enabledCache = { at: now, ids: await repo.enabledAccounts() };
    return enabledCache.ids;
  }

  async function settingsOf(
    accounts: { id: string; username: string; connected_via: GraphHost }[],
  ): Promise<CommentSetting[]> {
    const ids = accounts.map((a) => a.id);
    const [rows, kept] = await Promise.all([repo.settings(ids), repo.keptCounts(ids)]);
    const byId = new Map(rows.map((r) => [r.account_id, r]));
    return accounts.map((a) => ({
      account_id: a.id,
      username: a.username,
      connected_via: a.connected_via,
      enabled: byId.get(a.id)?.enabled ?? false,
      permission_missing: byId.get(a.id)?.permission_missing_at != null,
      kept_comments: kept.get(a.id) ?? 0,
    }));
  }

  async function ownAccount(userId: string, accountId: string) {
    const account = (await directory.userAccounts(userId)).find((a) => a.id === accountId);
    if (!account) throw new AppError("not_found", "Account not found");
    return account;
  }

  /** Writes the post's comments file: created once (found first if a crash left it), else replaced in place. */
  async function writeFile(
    userId: string,
    sidecar: {
      instagram_id: string;
      name: string;
      drive_file_id: string | null;
      destination: DestinationKind;
      owner: string;
    },
    recorded: {
      drive_file_id: string | null;
      drive_md5: string | null;
      drive_destination: DestinationKind;
      drive_owner: string;
    },
    content: unknown,
  ): Promise<{ id: string; md5: string }> {
    const body = Buffer.from(JSON.stringify(content, null, 2));
    const md5 = createHash("md5").update(body).digest("hex");
    // A file recorded in another destination (the account switched), or in another account of
    // it (connected again as someone else), is left there.
    const known =
      recorded.drive_destination === sidecar.destination && recorded.drive_owner === sidecar.owner
        ? recorded
        : { drive_file_id: null, drive_md5: null };
    if (known.drive_file_id && known.drive_md5 === md5) return { id: known.drive_file_id, md5 };
    // Through the seam: one token refresh and backoff, and the content verified once written.
    const d = deps.destinations.of(sidecar.destination).open(userId);
    const key = commentsKey(sidecar.instagram_id);
    let id = known.drive_file_id;
    if (!id) id = (await d.findItem(key))[0]?.id ?? null;
    if (id) {
      try {
        await d.replace(id, body, "application/json");
        return { id, md5 };
      } catch (err) {
        // The file was deleted in Drive: make it again below.
        if (classifyDestinationError(err)?.kind !== "not_found") throw err;
      }
    }
    if (!sidecar.drive_file_id) throw new Error("the post's sidecar is not in Drive");
    const { folderId } = await d.get(sidecar.drive_file_id);
    if (!folderId) throw new Error("the post's sidecar is in no folder");
    const created = await d.putBytes(
      {
        folderId,
        name: commentsFileName(sidecar.name),
        mimeType: "application/json",
        time: null,
        tags: { item: key },
      },
      body,
    );
    return { id: created.id, md5 };
  }

  return {
    async settings(userId: string): Promise<CommentSetting[]> {
      return settingsOf(await directory.userAccounts(userId));
    },

    /**
     * Turns "Also keep comments" on (answers the consent page that grants the permission, and
     * schedules the account's backed-up posts) or off (no more reads; what is kept stays).
     */
    async setEnabled(userId: string, accountId: string, enabled: boolean) {
      const account = await ownAccount(userId, accountId);
      const now = clock.now();
      await repo.setEnabled(accountId, enabled, now);
      enabledCache = null;
      let authUrl: string | null = null;
      if (enabled) {
        const posts = await directory.backedUpPosts(accountId);
        await repo.scheduleFirstReads(accountId, posts, now);
        authUrl = (
          await directory.startGrant(
            userId,
            account.connected_via,
            [COMMENTS_PERMISSION[account.connected_via]],
            { kind: "comments", username: account.username },
          )
        ).auth_url;
      }
      const [setting] = await settingsOf([account]);
      const kept = setting!.kept_comments;
      return {
        setting: setting!,
        auth_url: authUrl,
        message: enabled ? m.turnedOn(account.username) : m.turnedOff(account.username, kept),
      };
    },

    async postComments(userId: string, postId: string): Promise<PostCommentsResponse> {
      const post = await directory.post(postId);
      if (!post || post.user_id !== userId) throw new AppError("not_found", "Post not found");
      const [rows, state, enabled] = await Promise.all([
        repo.listComments(postId),
        repo.readState(postId),
        repo.isEnabled(post.account_id),
      ]);
      return {
        enabled,
        last_read_at: state?.last_read_at ? new Date(state.last_read_at).toISOString() : null,
        comments: threads(rows),
      };
    },

    /**
     * A post's backup completed (the backup says which post): its comments are read now, when
     * its account keeps them. One statement checks the setting and schedules the read.
     */
    async afterBackup(post: BackedUpPost) {
      if (post.media_product_type === "STORY") return;
      if (!(await repo.scheduleFirstReadIfKept(post, clock.now()))) return;
      await deps.enqueue(post.account_id);
    },

    /** A sync of the account ended: queue a read when some of its posts are due. */
    async afterSync(accountId: string) {
      if (!(await enabledAccounts()).has(accountId)) return;
      if (await repo.hasDueReads(accountId, clock.now())) await deps.enqueue(accountId);
    },

    /**
     * Reads the comments of the account's due posts (a batch; queues itself for the rest).
     * Without the comments permission nothing more is read until it is granted; a dead token
     * or a turned-off setting stops it too. Throttling or a provider failure throws (retry).
     */
    async refreshAccount(
      accountId: string,
    ): Promise<{ read: number; more?: boolean; stopped?: string }> {
      if (!(await repo.isEnabled(accountId))) return { read: 0, stopped: "disabled" };
      const account = await directory.account(accountId);
      if (!account) return { read: 0, stopped: "no account" };
      const due = await repo.dueReads(accountId, clock.now(), batch);
      if (due.length === 0) return { read: 0 };
      const ig = await directory.instagramAccessToken(accountId);
      let read = 0;
      for (const r of due) {
        const sidecar = await directory.sidecarOf(r.post_id);
        if (!sidecar) {
          // Not (or no longer) in Drive: try again with the next weekly read.
          await repo.postpone(r.post_id, nextCommentRead(r.posted_at, clock.now()));
          continue;
        }
        let comments: Awaited<ReturnType<CommentsClient["mediaComments"]>>["comments"];
        try {
          ({ comments } = await client.mediaComments({
            host: ig.connectedVia,
            token: ig.token,
            mediaId: sidecar.instagram_id,
            accountKey: ig.instagramUserId,
            call: (fn) => deps.graph(ig.instagramUserId, fn),
          }));
        } catch (err) {
          if (err instanceof ProviderError && err.kind === "permission") {
            await repo.setPermissionMissing(accountId, clock.now());
            return { read, stopped: "permission" };
          }
          if (isInstagramTokenInvalid(err)) return { read, stopped: "token" };
          if (err instanceof ProviderError && (err.kind === "not_found" || err.code === 100)) {
            // The post is gone from Instagram: what was kept stays; look again next week.
            await repo.postpone(r.post_id, nextCommentRead(r.posted_at, clock.now()));
            continue;
          }
          throw err;
        }
        const now = clock.now();
        await repo.saveRead(r.post_id, comments, now);
        await repo.setPermissionMissing(accountId, null);
        const all = await repo.listComments(r.post_id);
        const file = await writeFile(account.user_id, sidecar, r, {
          instagram_id: sidecar.instagram_id,
          username: account.username,
          permalink: sidecar.permalink,
          comments: threads(all).map(({ removed_at, replies, ...c }) => ({
            ...c,
            removed_on_instagram_at: removed_at,
            replies: replies.map(({ removed_at: gone, ...r }) => ({
              ...r,
              removed_on_instagram_at: gone,
            })),
          })),
          note: "Comments removed on Instagram stay here, with the date Keepsake saw them gone.",
          backed_up_by: "Keepsake",
        });
        await repo.finishRead(r.post_id, {
          last_read_at: now,
          next_read_at: nextCommentRead(r.posted_at, now),
          drive_file_id: file.id,
          drive_md5: file.md5,
          drive_destination: sidecar.destination,
          drive_owner: sidecar.owner,
        });
        read++;
      }
      if (due.length === batch) {
        await deps.enqueue(accountId);
        return { read, more: true };
      }
      return { read };
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
