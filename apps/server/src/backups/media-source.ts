import type { ConnectionTokens } from "../connections/index.ts";
import type { Clock } from "../lib/clock.ts";
import { type MediaClient, MediaUrlExpiredError } from "../providers/instagram/media.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import { abortableSleep, withBackoff } from "../providers/retry.ts";
import {
  type EngineSettings,
  type GraphPacer,
  type PostsRepository,
  toPostChild,
} from "../sync/index.ts";
import type { PostChild, PostRow } from "../sync/tables.ts";
import { type BackupItem, coverUrl } from "./naming.ts";

/** Instagram does not give out this media (copyrighted audio and the like). */
export class MediaWithheldError extends Error {}

/** The post being backed up; a fresh URL from Graph replaces it for the items after. */
export interface PostRef {
  current: PostRow;
}

/**
 * Opens CDN downloads of a post's items. A stored URL that the CDN no longer accepts (or none)
 * is replaced by a fresh one from Graph, stored on the post for the next attempt.
 */
export function createMediaSource(deps: {
  repo: Pick<PostsRepository, "updatePostMedia">;
  connections: Pick<ConnectionTokens, "instagramAccessToken">;
  media: MediaClient;
  pacer: GraphPacer;
  clock: Clock;
  settings: Pick<EngineSettings, "backoff" | "sleep" | "random">;
}) {
  const { repo, connections, media, pacer, clock, settings } = deps;

  async function freshUrl(item: BackupItem, accountId: string, ref: PostRef): Promise<string> {
    const ig = await connections.instagramAccessToken(accountId);
    const graph = <T>(fn: () => Promise<T>) => pacer.call(ig.instagramUserId, fn);
    const post = ref.current;
    const now = clock.now();
    if (item.index !== null) {
      const c = await graph(() =>
        media.child({
          host: ig.connectedVia,
          token: ig.token,
          mediaId: item.mediaId,
          accountKey: ig.instagramUserId,
        }),
      );
      const children: PostChild[] = post.children.map((x) =>
        x.id === c.id ? { ...x, media_url: c.mediaUrl, thumbnail_url: c.thumbnailUrl } : x,
      );
      await repo.updatePostMedia(
        post.id,
        { media_url: post.media_url, thumbnail_url: post.thumbnail_url, children },
        now,
      );
      ref.current = { ...post, children };
      if (!c.mediaUrl) throw new MediaWithheldError();
      return c.mediaUrl;
    }
    const fresh = await graph(() =>
      media.media({
        host: ig.connectedVia,
        token: ig.token,
        mediaId: post.instagram_id,
        accountKey: ig.instagramUserId,
      }),
    );
    const children: PostChild[] = fresh.children.length
      ? fresh.children.map(toPostChild)
      : post.children;
    await repo.updatePostMedia(
      post.id,
      { media_url: fresh.mediaUrl, thumbnail_url: fresh.thumbnailUrl, children },
      now,
    );
    ref.current = {
      ...post,
      media_url: fresh.mediaUrl,
      thumbnail_url: fresh.thumbnailUrl,
      children,
    };
    const url = item.kind === "cover" ? coverUrl(ref.current) : fresh.mediaUrl;
    if (!url) throw new MediaWithheldError();
    return url;
  }

  /** The item's URL as the post now stands (an earlier item may have fetched fresh ones). */
  function currentUrl(item: BackupItem, post: PostRow): string | null {
    if (item.kind === "cover") return coverUrl(post);
    if (item.index !== null)
      return post.children.find((c) => c.id === item.mediaId)?.media_url ?? null;
    return post.media_url;
  }

  return {
    /**
     * The item's CDN download (a streamed body the caller consumes or cancels). Aborting
     * `signal` breaks the download off (and a request it is piped into), and ends its retries.
     */
    async open(
      item: BackupItem,
      accountId: string,
      ref: PostRef,
      signal?: AbortSignal,
    ): Promise<Response> {
      const retrying = signal
        ? { ...settings, sleep: abortableSleep(settings.sleep, signal) }
        : settings;
      let url = currentUrl(item, ref.current) ?? (await freshUrl(item, accountId, ref));
      for (let tries = 0; ; tries++) {
        signal?.throwIfAborted();
        try {
          return await withBackoff(() => {
            signal?.throwIfAborted();
            return media.download(url, signal);
          }, retrying);
        } catch (err) {
          if (!(err instanceof MediaUrlExpiredError)) throw err;
          if (tries >= 1) {
            throw new ProviderError(
              "instagram",
              "transient",
              "The Instagram CDN refused a fresh media URL",
            );
          }
          url = await freshUrl(item, accountId, ref);
        }
      }
    },
  };
}

export type MediaSource = ReturnType<typeof createMediaSource>;
