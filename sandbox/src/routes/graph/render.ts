import type { Ctx } from "../../context.ts";
import { FieldSyntaxError, type FieldTree, parseFields } from "../../fields.ts";
import { Prng } from "../../prng.ts";
import { type IgAccount, type IgMedia, unlisted } from "../../state.ts";
import { graphDate } from "../../tokens.ts";
import { cdnUrl } from "../cdn.ts";

/** The two Graph hosts the sandbox answers as. */
export type GraphHost = "instagram" | "facebook";

export const MEDIA_FIELDS = new Set([
  "id",
  "caption",
  "media_type",
  "media_product_type",
  "media_url",
  "thumbnail_url",
  "permalink",
  "shortcode",
  "timestamp",
  "like_count",
  "comments_count",
  "view_count",
  "saved_count",
  "shares_count",
  "reposts_count",
  "username",
  "owner",
  "is_comment_enabled",
  "is_shared_to_feed",
  "children",
]);
const CHILD_FIELDS = new Set([
  "id",
  "media_type",
  "media_url",
  "thumbnail_url",
  "permalink",
  "shortcode",
  "timestamp",
  "username",
  "owner",
]);
const IG_USER_FIELDS = new Set([
  "id",
  "user_id",
  "ig_id",
  "username",
  "name",
  "account_type",
  "profile_picture_url",
  "followers_count",
  "follows_count",
  "media_count",
  "biography",
  "website",
]);

export class GraphFieldError extends Error {}

export function fieldTree(text: string | undefined): FieldTree {
  if (!text) return new Map([["id", null]]);
  try {
    return parseFields(text, "{", "}");
  } catch (e) {
    if (e instanceof FieldSyntaxError)
      throw new GraphFieldError(`(#100) Syntax error in fields: ${e.message}`);
    throw e;
  }
}

export function checkFields(tree: FieldTree, allowed: Set<string>, node: string): void {
  for (const key of tree.keys()) {
    if (!allowed.has(key))
      throw new GraphFieldError(
        `(#100) Tried accessing nonexisting field (${key}) on node type (${node})`,
      );
  }
}

const COUNTER_OF = {
  view_count: "views",
  saved_count: "saves",
  shares_count: "shares",
  reposts_count: "reposts",
} as const;

/**
 * The newer counters of a top-level post: set through the control API, else derived from its
 * id. Absent on stories and when the owner hides counts (the posts whose likes are hidden).
 */
export function counters(media: IgMedia) {
  if (media.productType === "STORY" || media.parentId || media.likeCount === undefined) return null;
  if (media.counters) return media.counters;
  const rng = new Prng(`counters:${media.id}`);
  const likes = media.likeCount;
  return {
    views: likes * rng.int(4, 20) + rng.int(0, 50),
    saves: Math.round((likes * rng.int(1, 12)) / 100),
    shares: Math.round((likes * rng.int(0, 8)) / 100),
    reposts: rng.int(0, 6),
  };
}

function permalink(media: IgMedia, account: IgAccount): string {
  if (media.productType === "STORY")
    return `https://instagram.com/stories/${account.username}/${media.id}`;
  const kind = media.productType === "REELS" ? "reel" : "p";
  return `https://www.instagram.com/${kind}/${media.shortcode}/`;
}

function mediaUrl(ctx: Ctx, base: string, media: IgMedia): string | undefined {
  if (media.withheld) return undefined;
  if (media.mediaType === "CAROUSEL_ALBUM") {
    const first = media.children?.[0] ? ctx.state.media[media.children[0]] : undefined;
    return first ? mediaUrl(ctx, base, first) : undefined;
  }
  return media.asset ? cdnUrl(ctx, base, media.id, media.asset) : undefined;
}

export function renderMedia(
  ctx: Ctx,
  base: string,
  media: IgMedia,
  tree: FieldTree,
  child: boolean,
): Record<string, unknown> {
  checkFields(tree, child ? CHILD_FIELDS : MEDIA_FIELDS, child ? "IGMediaChild" : "IGMedia");
  const account = ctx.state.igAccounts[media.ownerId]!;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    switch (key) {
      case "id":
        out.id = media.id;
        break;
      case "caption":
        if (media.caption !== undefined) out.caption = media.caption;
        break;
      case "media_type":
        out.media_type = media.mediaType;
        break;
      case "media_product_type":
        if (media.productType) out.media_product_type = media.productType;
        break;
      case "media_url": {
        const url = mediaUrl(ctx, base, media);
        if (url) out.media_url = url;
        break;
      }
      case "thumbnail_url":
        if (media.mediaType === "VIDEO" && media.thumbnail)
          out.thumbnail_url = cdnUrl(ctx, base, media.id, media.thumbnail);
        break;
      case "permalink":
        out.permalink = permalink(media, account);
        break;
      case "shortcode":
        out.shortcode = media.shortcode;
        break;
      case "timestamp":
        out.timestamp = graphDate(media.timestamp);
        break;
      case "like_count":
        if (media.likeCount !== undefined && media.productType !== "STORY")
          out.like_count = media.likeCount;
        break;
      case "comments_count":
        if (media.productType !== "STORY") out.comments_count = media.commentsCount;
        break;
      case "view_count":
      case "saved_count":
      case "shares_count":
      case "reposts_count": {
        const c = counters(media);
        if (c) out[key] = c[COUNTER_OF[key]];
        break;
      }
      case "username":
        out.username = account.username;
        break;
      case "owner":
        out.owner = { id: account.userId };
        break;
      case "is_comment_enabled":
        out.is_comment_enabled = true;
        break;
      case "is_shared_to_feed":
        if (media.productType === "REELS") out.is_shared_to_feed = true;
        break;
      case "children": {
        if (media.mediaType !== "CAROUSEL_ALBUM") break;
        const childTree = sub ?? new Map([["id", null]]);
        out.children = {
          data: (media.children ?? []).map((id) =>
            renderMedia(ctx, base, ctx.state.media[id]!, childTree, true),
          ),
        };
        break;
      }
    }
  }
  return out;
}

export function renderIgUser(
  ctx: Ctx,
  base: string,
  account: IgAccount,
  tree: FieldTree,
  host: GraphHost,
): Record<string, unknown> {
  checkFields(tree, IG_USER_FIELDS, host === "instagram" ? "User" : "IGUser");
  const out: Record<string, unknown> = {};
  for (const key of tree.keys()) {
    switch (key) {
      case "id":
        out.id = host === "instagram" ? account.id : account.userId;
        break;
      case "user_id":
        out.user_id = account.userId;
        break;
      case "ig_id":
        out.ig_id = Number(account.id.slice(-10));
        break;
      case "username":
        out.username = account.username;
        break;
      case "name":
        out.name = account.name;
        break;
      case "account_type":
        if (host === "instagram") out.account_type = account.accountType;
        break;
      case "profile_picture_url":
        out.profile_picture_url = cdnUrl(ctx, base, account.userId, account.avatar);
        break;
      case "followers_count":
        out.followers_count = account.followersCount;
        break;
      case "follows_count":
        out.follows_count = account.followsCount;
        break;
      case "media_count":
        out.media_count = account.media.filter((id) => !unlisted(ctx.state.media[id])).length;
        break;
      case "biography":
        out.biography = account.biography;
        break;
      case "website":
        out.website = account.website;
        break;
    }
  }
  return out;
}
