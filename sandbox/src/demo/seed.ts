import { Prng } from "../prng.ts";
import type {
  AccountType,
  FbUser,
  GoogleUser,
  IgAccount,
  IgMedia,
  SandboxState,
} from "../state.ts";
import { createPost, createStory, nextMediaId, shortcode } from "./content.ts";

/** Newest seeded post is this old; older posts go back from here. Fixed so content is deterministic. */
const ANCHOR = Date.UTC(2026, 5, 28, 17, 30, 0);
const DAY = 86_400_000;

export const DEMO_IG = {
  business: { id: "8410000000000001", userId: "17841400000000001", username: "lumen.studio" },
  creator: { id: "8410000000000002", userId: "17841400000000002", username: "maya.creates" },
  personal: { id: "8410000000000003", userId: "17841400000000003", username: "sam.everyday" },
} as const;

export const DEMO_FB = {
  withInstagram: { id: "10160000000000001", name: "Jordan Lee" },
  pageWithoutInstagram: { id: "10160000000000002", name: "Casey Morgan" },
  noPage: { id: "10160000000000003", name: "Riley Fox" },
} as const;

export const DEMO_GOOGLE = {
  jordan: { sub: "104000000000000000001", email: "jordan.lee@example.com" },
  maya: { sub: "104000000000000000002", email: "maya.chen@example.com" },
  sam: { sub: "104000000000000000003", email: "sam.rivera@example.com" },
} as const;

interface AccountSpec {
  ids: { id: string; userId: string; username: string };
  name: string;
  type: AccountType;
  posts: number;
  bio: string;
  followers: number;
  follows: number;
}

function seedAccount(state: SandboxState, spec: AccountSpec, now: number, business: boolean): void {
  const rng = new Prng(`account:${spec.ids.username}`);
  const account: IgAccount = {
    id: spec.ids.id,
    userId: spec.ids.userId,
    username: spec.ids.username,
    name: spec.name,
    accountType: spec.type,
    biography: spec.bio,
    website: `https://example.com/${spec.ids.username}`,
    followersCount: spec.followers,
    followsCount: spec.follows,
    avatar: { kind: "image", width: 320, height: 320, seed: rng.int(1, 2 ** 31) },
    media: [],
    stories: [],
  };
  state.igAccounts[account.id] = account;
  let t = ANCHOR - rng.int(1, 48) * 3_600_000;
  const posts: IgMedia[] = [];
  for (let i = 0; i < spec.posts; i++) {
    const post = createPost(state, account, { timestamp: t, rng });
    posts.push(post);
    t -= rng.int(6, 96) * 3_600_000 + rng.int(0, 3599) * 1000;
  }
  if (business) {
    // A few reels whose media_url is withheld (licensed music).
    let withheld = 0;
    for (const post of posts) {
      if (post.productType === "REELS" && withheld < 3 && posts.indexOf(post) % 3 === 1) {
        post.withheld = true;
        withheld++;
      }
    }
    // One reel carries the large benchmark video (size from options.largeVideoBytes).
    const large = posts.find((p, i) => i > 10 && p.productType === "REELS" && !p.withheld);
    if (large?.asset?.kind === "video") large.asset.bytes = 0;
  }
  const slots = posts.map((p) => p.id);
  if (business) {
    // Pinned: an older post shown first, out of timestamp order.
    const pinned = posts[Math.floor(posts.length * 0.7)]!;
    pinned.pinned = true;
    slots.splice(slots.indexOf(pinned.id), 1);
    slots.unshift(pinned.id);
  }
  // Ghost slots (e.g. ads or deleted media) make some pages short; one trails the list.
  const ghostAt = business ? [30, 31, 77, slots.length] : [Math.floor(slots.length / 2)];
  for (const at of ghostAt.sort((a, b) => b - a)) {
    const ghost: IgMedia = {
      id: nextMediaId(state),
      ownerId: account.id,
      mediaType: "IMAGE",
      productType: "AD",
      timestamp: t,
      commentsCount: 0,
      shortcode: shortcode(rng),
      ghost: true,
    };
    state.media[ghost.id] = ghost;
    slots.splice(at, 0, ghost.id);
  }
  account.media = slots;
  const storyCount = rng.int(3, 5);
  for (let i = 0; i < storyCount; i++) {
    createStory(state, account, now - (i * 4 + 1) * 3_600_000 - rng.int(0, 1800) * 1000, rng);
  }
  // One expired story (older than 24 h) that the API must not return.
  createStory(state, account, now - 30 * 3_600_000, rng);
}

/**
 * A synthetic business account for load tests (`bench.<n>`), with `posts` posts and a few live
 * stories; ids derived from `n` so each is unique.
 */
export function seedBenchAccount(state: SandboxState, n: number, posts: number, now: number) {
  const tail = String(n).padStart(8, "0");
  const ids = { id: `84300000${tail}`, userId: `17843000${tail}`, username: `bench.${n}` };
  seedAccount(
    state,
    { ids, name: `Bench ${n}`, type: "BUSINESS", posts, bio: "", followers: 0, follows: 0 },
    now,
    false,
  );
  return state.igAccounts[ids.id] as IgAccount;
}

function google(sub: string, email: string, name: string, quotaGb: number): GoogleUser {
  const [givenName = name, familyName = ""] = name.split(" ");
  return {
    sub,
    email,
    name,
    givenName,
    familyName,
    rootId: `0AL${sub.slice(-8)}Uk9PVA`,
    quotaLimit: quotaGb * 1024 ** 3,
    quotaFill: 0,
  };
}

export function seedState(now: number): SandboxState {
  const state: SandboxState = {
    version: 1,
    seq: 0,
    igAccounts: {},
    media: {},
    fbUsers: {},
    googleUsers: {},
    tokens: {},
    codes: {},
    googleGrants: {},
    driveFiles: {},
    uploads: {},
    stripe: {
      customers: {},
      subscriptions: {},
      checkoutSessions: {},
      portalSessions: {},
      invoices: {},
      events: [],
    },
    clockOffsetMs: 0,
  };
  seedAccount(
    state,
    {
      ids: DEMO_IG.business,
      name: "Lumen Studio",
      type: "BUSINESS",
      posts: 152,
      bio: "Photo & film studio. Portraits, products, small brands.",
      followers: 48_210,
      follows: 312,
    },
    now,
    true,
  );
  seedAccount(
    state,
    {
      ids: DEMO_IG.creator,
      name: "Maya Chen",
      type: "MEDIA_CREATOR",
      posts: 42,
      bio: "Illustrator · process videos every Friday",
      followers: 12_940,
      follows: 540,
    },
    now,
    false,
  );
  seedAccount(
    state,
    {
      ids: DEMO_IG.personal,
      name: "Sam Rivera",
      type: "PERSONAL",
      posts: 12,
      bio: "",
      followers: 210,
      follows: 180,
    },
    now,
    false,
  );
  const fb: FbUser[] = [
    {
      ...DEMO_FB.withInstagram,
      email: "jordan.lee@example.com",
      pages: [
        {
          id: "20530000000000001",
          name: "Lumen Studio",
          category: "Photographer",
          instagramUserId: DEMO_IG.business.userId,
        },
        {
          id: "20530000000000002",
          name: "Jordan Lee Photography Archive",
          category: "Personal blog",
        },
      ],
    },
    {
      ...DEMO_FB.pageWithoutInstagram,
      email: "casey.morgan@example.com",
      pages: [{ id: "20530000000000003", name: "Casey's Bakery", category: "Bakery" }],
    },
    { ...DEMO_FB.noPage, email: "riley.fox@example.com", pages: [] },
  ];
  for (const user of fb) state.fbUsers[user.id] = user;
  for (const user of [
    google(DEMO_GOOGLE.jordan.sub, DEMO_GOOGLE.jordan.email, "Jordan Lee", 15),
    google(DEMO_GOOGLE.maya.sub, DEMO_GOOGLE.maya.email, "Maya Chen", 15),
    google(DEMO_GOOGLE.sam.sub, DEMO_GOOGLE.sam.email, "Sam Rivera", 1),
  ]) {
    state.googleUsers[user.sub] = user;
  }
  return state;
}

export const DAY_MS = DAY;
