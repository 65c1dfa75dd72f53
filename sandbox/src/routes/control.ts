import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import type { Ctx } from "../context.ts";
import { SANDBOX_CREDENTIALS } from "../credentials.ts";
import { createPost, createStory, seedBenchAccount } from "../demo.ts";
import { Prng } from "../prng.ts";
import type { DriveFile, IgAccount, IgMedia, TokenRecord } from "../state.ts";
import { issueToken } from "../tokens.ts";
import { FOLDER_MIME, usage } from "./drive/index.ts";
import type { StripeSim } from "./stripe/index.ts";

function findAccount(ctx: Ctx, key: string | undefined): IgAccount | undefined {
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

function folderPath(ctx: Ctx, file: DriveFile): string {
  const names: string[] = [];
  let parentId = file.parents[0];
  let guard = 0;
  while (parentId && guard++ < 64) {
    const parent = ctx.state.driveFiles[parentId];
    if (!parent) break;
    names.unshift(parent.name);
    parentId = parent.parents[0];
  }
  return names.join("/");
}

export function driveListing(ctx: Ctx, email?: string) {
  const users = ctx.state.googleUsers;
  return Object.values(ctx.state.driveFiles)
    .filter((f) => !email || users[f.ownerSub]?.email === email)
    .sort((a, b) => a.createdTime - b.createdTime || a.id.localeCompare(b.id))
    .map((f) => {
      const folder = folderPath(ctx, f);
      return {
        ownerEmail: users[f.ownerSub]?.email ?? null,
        id: f.id,
        name: f.name,
        folder,
        path: folder ? `${folder}/${f.name}` : f.name,
        mimeType: f.mimeType,
        isFolder: f.mimeType === FOLDER_MIME,
        size: f.size ?? null,
        md5Checksum: f.md5 ?? null,
        appProperties: f.appProperties,
        properties: f.properties,
        parents: f.parents,
        createdTime: new Date(f.createdTime).toISOString(),
        modifiedTime: new Date(f.modifiedTime).toISOString(),
        description: f.description ?? null,
        trashed: f.trashed,
      };
    });
}

const tokenSelector = z.object({
  token: z.string().optional(),
  instagram_user_id: z.string().optional(),
  facebook_user_id: z.string().optional(),
  google_email: z.string().optional(),
  subcode: z.number().int().optional(),
  message: z.string().optional(),
});

function selectTokens(ctx: Ctx, sel: z.infer<typeof tokenSelector>): TokenRecord[] {
  const all = Object.values(ctx.state.tokens);
  if (sel.token) return all.filter((t) => t.token === sel.token);
  if (sel.instagram_user_id) {
    const account = findAccount(ctx, sel.instagram_user_id);
    return all.filter((t) => t.provider === "instagram" && t.subject === account?.id);
  }
  if (sel.facebook_user_id)
    return all.filter((t) => t.provider === "facebook" && t.subject === sel.facebook_user_id);
  if (sel.google_email) {
    const user = Object.values(ctx.state.googleUsers).find((u) => u.email === sel.google_email);
    return all.filter((t) => t.provider === "google" && t.subject === user?.sub);
  }
  return [];
}

function bad(reply: FastifyReply, error: unknown): FastifyReply {
  const message =
    error instanceof z.ZodError
      ? error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")
      : String(error);
  return reply.code(400).send({ error: message });
}

export function registerControl(app: FastifyInstance, ctx: Ctx, stripe: StripeSim): void {
  const c = "/_control";
  const parse = <T extends z.ZodType>(schema: T, body: unknown): z.infer<T> =>
    schema.parse(body ?? {});
  const handle =
    <T extends z.ZodType>(schema: T, fn: (body: z.infer<T>, reply: FastifyReply) => unknown) =>
    async (req: { body: unknown }, reply: FastifyReply) => {
      let body: z.infer<T>;
      try {
        body = parse(schema, req.body);
      } catch (e) {
        return bad(reply, e);
      }
      const out = await fn(body, reply);
      return reply.sent ? reply : reply.send(out ?? { ok: true });
    };

  app.get(c, async () => ({
    now: new Date(ctx.now()).toISOString(),
    endpoints: "see sandbox/README.md",
    calls: ctx.calls,
  }));

  app.post(`${c}/reset`, async () => {
    await ctx.reset();
    return { ok: true, now: new Date(ctx.now()).toISOString() };
  });

  app.get(`${c}/clock`, async () => ({
    now: new Date(ctx.now()).toISOString(),
    offset_seconds: ctx.clock.offsetMs / 1000,
  }));
  app.post(
    `${c}/clock`,
    handle(
      z.object({ advance_seconds: z.number().optional(), set: z.string().optional() }),
      (b) => {
        if (b.set !== undefined) {
          const t = Date.parse(b.set);
          if (Number.isNaN(t)) throw new Error("bad date");
          ctx.clock.set(t);
        }
        if (b.advance_seconds !== undefined) ctx.clock.advance(b.advance_seconds);
        ctx.changed();
        stripe.tick();
        return {
          now: new Date(ctx.now()).toISOString(),
          offset_seconds: ctx.clock.offsetMs / 1000,
        };
      },
    ),
  );

  app.post(
    `${c}/latency`,
    handle(z.object({ ms: z.number().int().min(0), endpoint: z.string().optional() }), (b) => {
      if (b.endpoint) ctx.latency.endpoints[b.endpoint] = b.ms;
      else ctx.latency.all = b.ms;
      return ctx.latency;
    }),
  );

  app.get(`${c}/faults`, async () => ({ faults: ctx.faults, cuts: ctx.cuts }));
  app.post(
    `${c}/faults`,
    handle(
      z.object({
        endpoint: z.string().min(1),
        count: z.number().int().min(1).default(1),
        error: z.string().regex(/^(graph:\d+|http:\d{3}|drive:\w+|stripe:\w+|google:\w+|reset)$/),
        retry_after: z.number().int().min(0).optional(),
        message: z.string().optional(),
      }),
      (b) => {
        ctx.faults.push({
          endpoint: b.endpoint,
          remaining: b.count,
          error: b.error,
          retryAfter: b.retry_after,
          message: b.message,
        });
        return { faults: ctx.faults };
      },
    ),
  );
  app.delete(`${c}/faults`, async () => {
    ctx.faults.length = 0;
    ctx.cuts.length = 0;
    return { ok: true };
  });

  app.get(`${c}/calls`, async () => ({ calls: ctx.calls }));
  app.delete(`${c}/calls`, async () => {
    ctx.calls = {};
    return { ok: true };
  });

  app.get(`${c}/tokens`, async () => ({
    tokens: Object.values(ctx.state.tokens).map((t) => ({
      token: t.token,
      provider: t.provider,
      kind: t.kind,
      subject: t.subject,
      scopes: t.scopes,
      issued_at: new Date(t.issuedAt).toISOString(),
      expires_at: t.expiresAt === null ? null : new Date(t.expiresAt).toISOString(),
      revoked: t.revoked !== undefined,
    })),
  }));
  app.post(
    `${c}/tokens/expire`,
    handle(tokenSelector, (b) => {
      const tokens = selectTokens(ctx, b);
      for (const t of tokens) t.expiresAt = ctx.now() - 1000;
      ctx.changed();
      return { expired: tokens.length };
    }),
  );
  app.post(
    `${c}/tokens/revoke`,
    handle(tokenSelector, (b) => {
      const tokens = selectTokens(ctx, b);
      const subcode = b.subcode ?? 458;
      const message =
        b.message ??
        (subcode === 460
          ? "Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons."
          : "Error validating access token: The user has not authorized application.");
      for (const t of tokens)
        t.revoked = {
          subcode,
          message: t.provider === "google" ? "Token has been expired or revoked." : message,
        };
      ctx.changed();
      return { revoked: tokens.length };
    }),
  );

  app.post(`${c}/cdn/expire`, async () => {
    ctx.cdnGeneration++;
    return { ok: true, generation: ctx.cdnGeneration };
  });
  app.post(
    `${c}/cdn/ttl`,
    handle(z.object({ seconds: z.number().int().min(1) }), (b) => {
      ctx.cdnTtlSeconds = b.seconds;
      return { ttl_seconds: b.seconds };
    }),
  );

  app.post(
    `${c}/drive/cut`,
    handle(
      z.object({
        after_bytes: z.number().int().min(0),
        count: z.number().int().min(1).default(1),
        upload_id: z.string().optional(),
      }),
      (b) => {
        ctx.cuts.push({ afterBytes: b.after_bytes, remaining: b.count, uploadId: b.upload_id });
        return { cuts: ctx.cuts };
      },
    ),
  );
  app.post(
    `${c}/instagram/accounts`,
    handle(
      z.object({
        count: z.number().int().min(1).max(20_000),
        posts: z.number().int().min(1).max(200).default(12),
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
            ["instagram_business_basic"],
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
  app.post(
    `${c}/drive/corrupt`,
    handle(z.object({ count: z.number().int().min(1).default(1) }), (b) => {
      ctx.corruptUploads += b.count;
      return { corrupt_uploads: ctx.corruptUploads };
    }),
  );
  app.post(
    `${c}/drive/quota`,
    handle(
      z.object({
        email: z.string(),
        limit_bytes: z.number().int().min(0).optional(),
        fill: z.boolean().optional(),
        free_bytes: z.number().int().min(0).optional(),
      }),
      (b, reply) => {
        const user = Object.values(ctx.state.googleUsers).find((u) => u.email === b.email);
        if (!user) return reply.code(404).send({ error: `no Google user ${b.email}` });
        if (b.limit_bytes !== undefined) user.quotaLimit = b.limit_bytes;
        if (b.fill || b.free_bytes !== undefined) {
          user.quotaFill = 0;
          user.quotaFill = Math.max(0, user.quotaLimit - usage(ctx, user) - (b.free_bytes ?? 0));
        }
        ctx.changed();
        return { email: user.email, limit: user.quotaLimit, usage: usage(ctx, user) };
      },
    ),
  );
  app.get(`${c}/drive/files`, async (req) => ({
    files: driveListing(ctx, (req.query as { email?: string }).email),
  }));
  app.get(`${c}/drive/uploads`, async () => ({
    uploads: Object.values(ctx.state.uploads).map((u) => ({
      upload_id: u.id,
      received: u.received,
      total: u.total ?? null,
      file_id: u.fileId ?? null,
      expires_at: new Date(u.expiresAt).toISOString(),
    })),
  }));

  app.get(`${c}/accounts`, async () => ({
    instagram: Object.values(ctx.state.igAccounts).map((a) => ({
      id: a.id,
      user_id: a.userId,
      username: a.username,
      name: a.name,
      account_type: a.accountType,
      media_count: a.media.filter((id) => !ctx.state.media[id]?.ghost).length,
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
    if (!account) return reply.code(404).send({ error: "no such account" });
    return {
      media: account.media
        .map((id) => ctx.state.media[id]!)
        .filter((m) => !m.ghost)
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
      if (!account) return reply.code(404).send({ error: "no such account" });
      const posts = addPosts(ctx, account, b.count, b.media_type);
      return {
        created: posts.map((p) => ({
          id: p.id,
          media_type: p.mediaType,
          timestamp: new Date(p.timestamp).toISOString(),
        })),
      };
    }),
  );
  app.post(
    `${c}/instagram/stories`,
    handle(accountSchema, (b, reply) => {
      const account = findAccount(ctx, b.account);
      if (!account) return reply.code(404).send({ error: "no such account" });
      const created: IgMedia[] = [];
      for (let i = 0; i < b.count; i++) {
        created.push(
          createStory(ctx.state, account, ctx.now() - i * 1000, new Prng(`story:${ctx.state.seq}`)),
        );
      }
      ctx.changed();
      return {
        created: created.map((s) => ({
          id: s.id,
          media_type: s.mediaType,
          timestamp: new Date(s.timestamp).toISOString(),
        })),
      };
    }),
  );

  app.post(
    `${c}/graph/usage`,
    handle(
      z.object({
        app_call_count: z.number().min(0).max(100).nullable().optional(),
        buc_call_count: z.number().min(0).max(100).nullable().optional(),
        regain_minutes: z.number().min(0).optional(),
        buc_budget_per_day: z.number().int().min(1).optional(),
        app_budget_per_hour: z.number().int().min(1).optional(),
      }),
      (b) => {
        if (b.app_call_count !== undefined) ctx.usage.appCallCount = b.app_call_count ?? undefined;
        if (b.buc_call_count !== undefined) ctx.usage.bucCallCount = b.buc_call_count ?? undefined;
        if (b.regain_minutes !== undefined) ctx.usage.regainMinutes = b.regain_minutes;
        if (b.buc_budget_per_day) ctx.bucBudgetPerDay = b.buc_budget_per_day;
        if (b.app_budget_per_hour) ctx.appBudgetPerHour = b.app_budget_per_hour;
        return {
          usage: ctx.usage,
          buc_budget_per_day: ctx.bucBudgetPerDay,
          app_budget_per_hour: ctx.appBudgetPerHour,
        };
      },
    ),
  );
  app.post(
    `${c}/config`,
    handle(z.object({ ig_token_shape: z.enum(["wrapped", "flat"]).optional() }), (b) => {
      if (b.ig_token_shape) ctx.igTokenShape = b.ig_token_shape;
      return { ig_token_shape: ctx.igTokenShape };
    }),
  );

  app.post(
    `${c}/stripe/webhook`,
    handle(
      z.object({
        url: z.string().url().nullable().optional(),
        retry_base_ms: z.number().int().min(1).optional(),
        max_attempts: z.number().int().min(1).optional(),
      }),
      (b) => {
        if (b.url !== undefined) ctx.state.stripe.webhookUrl = b.url ?? undefined;
        if (b.retry_base_ms) ctx.webhookRetryBaseMs = b.retry_base_ms;
        if (b.max_attempts) ctx.webhookMaxAttempts = b.max_attempts;
        ctx.changed();
        return {
          url: stripe.webhookUrl() ?? null,
          retry_base_ms: ctx.webhookRetryBaseMs,
          max_attempts: ctx.webhookMaxAttempts,
        };
      },
    ),
  );
  app.get(`${c}/stripe/events`, async () => ({
    events: ctx.state.stripe.events.map((e) => ({
      id: e.event.id,
      type: e.event.type,
      delivered: e.delivered,
      deliveries: e.deliveries,
      object_id: (e.event.data as { object: { id: string } }).object.id,
    })),
  }));
  app.post(
    `${c}/stripe/payment_failed`,
    handle(z.object({ subscription: z.string() }), (b, reply) => {
      const sub = ctx.state.stripe.subscriptions[b.subscription];
      if (!sub) return reply.code(404).send({ error: "no such subscription" });
      const invoice = stripe.failPayment(sub);
      return { invoice: invoice.id, status: sub.status };
    }),
  );
  app.post(`${c}/stripe/checkout/:id/complete`, async (req, reply) => {
    const session = ctx.state.stripe.checkoutSessions[(req.params as { id: string }).id];
    if (session?.status !== "open")
      return reply.code(404).send({ error: "no open checkout session" });
    stripe.completeCheckout(session);
    return { subscription: session.subscription, customer: session.customer };
  });

  app.post(
    `${c}/drive/uploads/expire`,
    handle(z.object({ upload_id: z.string().optional() }), (b) => {
      let n = 0;
      for (const u of Object.values(ctx.state.uploads)) {
        if (!b.upload_id || u.id === b.upload_id) {
          u.expiresAt = ctx.now() - 1;
          n++;
        }
      }
      ctx.changed();
      return { expired: n };
    }),
  );
}

export function clearBlobs(dir: string): void {
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { force: true, recursive: true });
}
