import type { Prng } from "../prng.ts";
import type { Asset, IgAccount, IgMedia, ImageAsset, SandboxState, VideoAsset } from "../state.ts";

const SUBJECTS = [
  "golden hour",
  "studio session",
  "new collection",
  "behind the scenes",
  "morning light",
  "coffee break",
  "client shoot",
  "weekend market",
  "product launch",
  "team day",
  "city walk",
  "field notes",
  "sketchbook",
  "print drop",
  "color study",
];
const MOODS = ["✨", "🌿", "📸", "☕️", "🎬", "🖤", "🌅", "🧡", "", ""];
const TAGS = ["#photography", "#smallbusiness", "#creator", "#design", "#reels", "#studio", "#art"];
const IMAGE_SIZES: [number, number][] = [
  [1080, 1080],
  [1080, 1350],
  [1080, 566],
  [1440, 1800],
  [1440, 1440],
  [640, 800],
  [320, 320],
];

function caption(rng: Prng): string | undefined {
  if (rng.chance(0.06)) return undefined;
  const subject = rng.pick(SUBJECTS);
  const text = `${subject[0]!.toUpperCase()}${subject.slice(1)} ${rng.pick(MOODS)}`.trim();
  const tags = rng.chance(0.6) ? ` ${rng.pick(TAGS)} ${rng.pick(TAGS)}` : "";
  const quote = rng.chance(0.1) ? ' — "it\'s all in the details"' : "";
  return `${text}${quote}${tags}`;
}

export function shortcode(rng: Prng): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  let s = "C";
  for (let i = 0; i < 10; i++) s += alphabet[rng.int(0, 63)];
  return s;
}

export function imageAsset(rng: Prng): ImageAsset {
  const [width, height] = rng.pick(IMAGE_SIZES);
  return { kind: "image", width, height, seed: rng.int(1, 2 ** 31) };
}

export function videoAsset(rng: Prng, reel: boolean): VideoAsset {
  const big = rng.chance(0.06);
  const bytes = big ? rng.int(12, 24) * 1_048_576 : rng.int(300, 4_000) * 1024;
  const [width, height] = reel ? [352, 640] : rng.pick([[640, 352] as const, [480, 480] as const]);
  return { kind: "video", width, height, bytes, seed: rng.int(1, 2 ** 31) };
}

/** Hands out ids like real Graph ids: long digit strings. */
export function nextMediaId(state: SandboxState): string {
  state.seq += 1;
  return (17_900_000_000_000_000n + BigInt(state.seq) * 7n).toString();
}

export interface NewPostOptions {
  mediaType?: "IMAGE" | "VIDEO" | "CAROUSEL_ALBUM" | "REELS";
  timestamp: number;
  rng: Prng;
  caption?: string;
}

/** Creates one post (and carousel children) owned by `account`; does not place it in a slot. */
export function createPost(state: SandboxState, account: IgAccount, opts: NewPostOptions): IgMedia {
  const { rng } = opts;
  const kind =
    opts.mediaType ??
    rng.pick([
      "IMAGE",
      "IMAGE",
      "IMAGE",
      "IMAGE",
      "VIDEO",
      "REELS",
      "REELS",
      "CAROUSEL_ALBUM",
    ] as const);
  const id = nextMediaId(state);
  const media: IgMedia = {
    id,
    ownerId: account.id,
    mediaType: kind === "REELS" ? "VIDEO" : kind,
    productType: kind === "REELS" ? "REELS" : "FEED",
    caption: opts.caption ?? caption(rng),
    timestamp: opts.timestamp,
    commentsCount: rng.int(0, 140),
    shortcode: shortcode(rng),
  };
  if (!rng.chance(0.05)) media.likeCount = rng.int(3, 4000);
  if (kind === "IMAGE") media.asset = imageAsset(rng);
  if (kind === "VIDEO" || kind === "REELS") {
    media.asset = videoAsset(rng, kind === "REELS");
    media.thumbnail = {
      kind: "image",
      width: media.asset.width,
      height: media.asset.height,
      seed: rng.int(1, 2 ** 31),
    };
  }
  if (kind === "CAROUSEL_ALBUM") {
    const count = rng.int(2, 10);
    media.children = [];
    for (let i = 0; i < count; i++) {
      const childVideo = rng.chance(0.2);
      const child: IgMedia = {
        id: nextMediaId(state),
        ownerId: account.id,
        mediaType: childVideo ? "VIDEO" : "IMAGE",
        timestamp: opts.timestamp,
        commentsCount: 0,
        shortcode: shortcode(rng),
        asset: childVideo ? videoAsset(rng, false) : imageAsset(rng),
        parentId: id,
      };
      if (childVideo)
        child.thumbnail = { kind: "image", width: 640, height: 352, seed: rng.int(1, 2 ** 31) };
      state.media[child.id] = child;
      media.children.push(child.id);
    }
  }
  state.media[id] = media;
  return media;
}

export function createStory(
  state: SandboxState,
  account: IgAccount,
  timestamp: number,
  rng: Prng,
): IgMedia {
  const video = rng.chance(0.4);
  const asset: Asset = video
    ? {
        kind: "video",
        width: 352,
        height: 640,
        bytes: rng.int(200, 1500) * 1024,
        seed: rng.int(1, 2 ** 31),
      }
    : { kind: "image", width: 1080, height: 1920, seed: rng.int(1, 2 ** 31) };
  const story: IgMedia = {
    id: nextMediaId(state),
    ownerId: account.id,
    mediaType: video ? "VIDEO" : "IMAGE",
    productType: "STORY",
    timestamp,
    commentsCount: 0,
    shortcode: shortcode(rng),
    asset,
  };
  if (video)
    story.thumbnail = { kind: "image", width: 352, height: 640, seed: rng.int(1, 2 ** 31) };
  state.media[story.id] = story;
  account.stories.push(story.id);
  return story;
}
