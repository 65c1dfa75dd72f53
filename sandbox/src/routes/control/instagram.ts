import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { Ctx } from "../../context.ts";
import { SANDBOX_CREDENTIALS } from "../../credentials.ts";
import {
  addComment,
  commentById,
  createPost,
  createStory,
  mediaComments,
  removeComment,
  seedBenchAccount,
} from "../../demo/index.ts";
import { Prng } from "../../prng.ts";
import { type IgAccount, type IgComment, type IgMedia, unlisted } from "../../state.ts";
import { issueToken } from "../../tokens.ts";
import { usage } from "../drive/index.ts";
import { counters } from "../graph/render.ts";
import { CONTROL as c, handle } from "./handle.ts";

export function findAccount(ctx: Ctx, key: string | undefined): IgAccount | undefined {
  const accounts = Object.values(ctx.state.igAccounts);
  if (!key) return accounts[0];
  const k = key.replace(/^@/, "");
  return accounts.find((a) => a.id === k || a.userId === k || a.username === k);
}

/** Adds `count` new posts at the top of an account's feed (after the pinned post), timestamped now. */
export function addPosts(
  ctx: Ctx,
  account: IgAccount,
  count: number,
  mediaType?: "IMAGE" | "VIDEO" | "CAROUSEL_ALBUM" | "REELS",
): IgMedia[] {
  const created: IgMedia[] = [];
  for (let i = 0; i < count; i++) {
    const rng = new Prng(`added:${account.username}:${ctx.state.seq}`);
    const post = createPost(ctx.state, account, {
      timestamp: ctx.now() - (count - 1 - i) * 1000,
      rng,
      mediaType,
    });
    const pinnedCount = account.media.filter((id) => ctx.state.media[id]?.pinned).length;
    account.media.splice(pinnedCount, 0, post.id);
    created.push(post);
  }
  ctx.changed();
  return created;
}

const noAccount = (reply: FastifyReply) => reply.code(404).send({ error: "no such account" });

/** The answer listing posts or stories just created. */
function createdList(items: IgMedia[]) {
  return {
    created: items.map((p) => ({
      id: p.id,
      media_type: p.mediaType,
      timestamp: new Date(p.timestamp).toISOString(),
    })),
  };
}

/** Demo accounts (all providers), Instagram content, bench accounts and the CDN's signatures. */
export function registerInstagramControl(app: FastifyInstance, ctx: Ctx): void {
  app.post(`${c}/cdn/expire`, async () => {
    ctx.cdnGeneration++;
    return { ok: true, generation: ctx.cdnGeneration };
  });
  app.post(
    `${c}/cdn/unsized`,
    handle(z.object({ on: z.boolean() }), (b) => {
      ctx.cdnUnsized = b.on;
      return { unsized: b.on };
    }),
  );
  app.post(
    `${c}/cdn/ttl`,
    handle(z.object({ seconds: z.number().int().min(1) }), (b) => {
      ctx.cdnTtlSeconds = b.seconds;
      return { ttl_seconds: b.seconds };
    }),
  );
  app.post(
    `${c}/instagram/accounts`,
    handle(
      z.object({
        count: z.number().int().min(1).max(20_000),
        posts: z.number().int().min(1).max(10_000).default(12),
        /** The tokens' permissions (default: instagram_business_basic). */
        scopes: z.array(z.string().min(1)).max(10).optional(),
      }),
      (b) => {
        const start = Object.values(ctx.state.igAccounts).filter((a) =>
          a.username.startsWith("bench."),
        ).length;
        const accounts = [];
        for (let i = 0; i < b.count; i++) {
          const a = seedBenchAccount(ctx.state, start + i, b.posts, ctx.now());
          const token = issueToken(
            ctx,
            "instagram",
            "long",
            a.id,
            SANDBOX_CREDENTIALS.instagram.clientId,
            b.scopes ?? ["instagram_business_basic"],
            60 * 86_400,
          );
          accounts.push({
            id: a.id,
            user_id: a.userId,
            username: a.username,
            access_token: token.token,
          });
        }
        ctx.changed();
        return { accounts };
      },
    ),
  );

  app.get(`${c}/accounts`, async () => ({
    instagram: Object.values(ctx.state.igAccounts).map((a) => ({
      id: a.id,
      user_id: a.userId,
      username: a.username,
      name: a.name,
      account_type: a.accountType,
      media_count: a.media.filter((id) => !unlisted(ctx.state.media[id])).length,
      slots: a.media.length,
      stories: a.stories.length,
    })),
    facebook: Object.values(ctx.state.fbUsers).map((u) => ({
      id: u.id,
      name: u.name,
      email: u.email,
      pages: u.pages.map((p) => ({
        id: p.id,
        name: p.name,
        instagram_business_account: p.instagramUserId ?? null,
      })),
    })),
    google: Object.values(ctx.state.googleUsers).map((u) => ({
      sub: u.sub,
      email: u.email,
      name: u.name,
      quota_limit: u.quotaLimit,
      usage: usage(ctx, u),
    })),
  }));
  app.get(`${c}/instagram/:account/media`, async (req, reply) => {
    const account = findAccount(ctx, (req.params as { account: string }).account);
    if (!account) return noAccount(reply);
    return {
      media: account.media
        .map((id) => ctx.state.media[id]!)
        .filter((m) => !unlisted(m))
        .map((m) => ({
          id: m.id,
          media_type: m.mediaType,
          media_product_type: m.productType,
          timestamp: new Date(m.timestamp).toISOString(),
          pinned: m.pinned ?? false,
          media_url_withheld: m.withheld ?? false,
          children: m.children ?? [],
          video_bytes: m.asset?.kind === "video" ? m.asset.bytes || ctx.largeVideoBytes : null,
        })),
    };
  });

  const accountSchema = z.object({
    account: z.string().optional(),
    count: z.number().int().min(1).max(500).default(1),
    media_type: z.enum(["IMAGE", "VIDEO", "CAROUSEL_ALBUM", "REELS"]).optional(),
  });
  app.post(
    `${c}/instagram/posts`,
    handle(accountSchema, (b, reply) => {
      const account = findAccount(ctx, b.account);
      if (!account) return noAccount(reply);
      return createdList(addPosts(ctx, account, b.count, b.media_type));
    }),
  );
  app.post(
    `${c}/instagram/stories`,
    handle(accountSchema, (b, reply) => {
      const account = findAccount(ctx, b.account);
      if (!account) return noAccount(reply);
      const created: IgMedia[] = [];
      for (let i = 0; i < b.count; i++) {
        created.push(
          createStory(ctx.state, account, ctx.now() - i * 1000, new Prng(`story:${ctx.state.seq}`)),
        );
      }
      ctx.changed();
      return createdList(created);
    }),
  );

  // Engagement and deletions (issue 30): a post's counters, and deleting, archiving or
  // restoring it as its owner would in the Instagram app.
  const mediaOf = (id: string) => {
    const m = ctx.state.media[id];
    return m && !m.ghost && !m.parentId && m.productType !== "STORY" ? m : undefined;
  };
  const noMedia = (reply: FastifyReply) => reply.code(404).send({ error: "no such post" });
  app.post(
    `${c}/instagram/media/:id/counters`,
    handle(
      z.object({
        like_count: z.number().int().min(0).optional(),
        comments_count: z.number().int().min(0).optional(),
        view_count: z.number().int().min(0).optional(),
        saved_count: z.number().int().min(0).optional(),
        shares_count: z.number().int().min(0).optional(),
        reposts_count: z.number().int().min(0).optional(),
        /** true: the owner hides the counts (like_count and the newer counters are absent). */
        hidden: z.boolean().optional(),
      }),
      (b, reply, req) => {
        const m = mediaOf((req.params as { id: string }).id);
        if (!m) return noMedia(reply);
        const now = counters(m) ?? { views: 0, saves: 0, shares: 0, reposts: 0 };
        if (b.like_count !== undefined) m.likeCount = b.like_count;
        if (b.hidden === true) delete m.likeCount;
        else if (b.hidden === false && m.likeCount === undefined) m.likeCount = 0;
        if (b.comments_count !== undefined) m.commentsCount = b.comments_count;
        m.counters = {
          views: b.view_count ?? now.views,
          saves: b.saved_count ?? now.saves,
          shares: b.shares_count ?? now.shares,
          reposts: b.reposts_count ?? now.reposts,
        };
        ctx.changed();
        return { id: m.id, like_count: m.likeCount ?? null, counters: counters(m) };
      },
    ),
  );
  app.post(
    `${c}/instagram/media/:id/remove`,
    handle(
      z.object({ as: z.enum(["deleted", "archived"]).default("deleted") }),
      (b, reply, req) => {
        const m = mediaOf((req.params as { id: string }).id);
        if (!m) return noMedia(reply);
        m.removed = b.as;
        ctx.changed();
        return { id: m.id, removed: m.removed };
      },
    ),
  );
  app.post(
    `${c}/instagram/media/:id/restore`,
    handle(z.object({}), (_b, reply, req) => {
      const m = mediaOf((req.params as { id: string }).id);
      if (!m) return noMedia(reply);
      delete m.removed;
      ctx.changed();
      return { id: m.id, removed: null };
    }),
  );

  app.post(
    `${c}/instagram/stories-login`,
    handle(z.object({ mode: z.enum(["served", "unsupported", "permission"]) }), (b) => {
      ctx.igLoginStories = b.mode;
      return { instagram_login_stories: b.mode };
    }),
  );

  const commentView = (cm: IgComment) => ({
    id: cm.id,
    text: cm.text,
    username: cm.username,
    timestamp: new Date(cm.timestamp).toISOString(),
    replies: cm.replies,
  });
  const topMedia = (id: string) => {
    const m = ctx.state.media[id];
    return m && !m.ghost && !m.parentId && m.productType !== "STORY" ? m : undefined;
  };
  app.get(`${c}/instagram/media/:id/comments`, async (req, reply) => {
    const media = topMedia((req.params as { id: string }).id);
    if (!media) return reply.code(404).send({ error: "no such media" });
    const ids = mediaComments(ctx.state, media);
    ctx.changed();
    return {
      comments_count: media.commentsCount,
      comments: ids.map((id) => commentView(commentById(ctx.state, id)!)),
    };
  });
  app.post(
    `${c}/instagram/comments`,
    handle(
      z.object({
        media_id: z.string().min(1),
        text: z.string().min(1).max(2200),
        username: z.string().min(1).max(30).optional(),
        parent_id: z.string().optional(),
      }),
      (b, reply) => {
        const media = topMedia(b.media_id);
        if (!media) return reply.code(404).send({ error: "no such media" });
        try {
          const made = addComment(ctx.state, media, {
            text: b.text,
            now: ctx.now(),
            ...(b.username ? { username: b.username } : {}),
            ...(b.parent_id ? { parentId: b.parent_id } : {}),
          });
          ctx.changed();
          return commentView(made);
        } catch (e) {
          return reply.code(404).send({ error: String((e as Error).message) });
        }
      },
    ),
  );
  app.delete(`${c}/instagram/comments/:id`, async (req, reply) => {
    const cm = commentById(ctx.state, (req.params as { id: string }).id);
    const media = cm ? ctx.state.media[cm.mediaId] : undefined;
    if (!cm || !media) return reply.code(404).send({ error: "no such comment" });
    const removed = removeComment(ctx.state, media, cm.id);
    ctx.changed();
    return { removed };
  });
}
