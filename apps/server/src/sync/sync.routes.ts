import {
  backupsQuery,
  backupsResponse,
  dashboardStats,
  newPostsCheck,
  postsQuery,
  postsResponse,
  retryBackupResponse,
  retryFailedRequest,
  retryFailedResponse,
  startSyncRequest,
  startSyncResponse,
  syncJob,
  syncJobsQuery,
  syncMessages,
  syncStatus,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AuthGuards } from "../auth/auth.guards.ts";
import { principalOf } from "../auth/auth.guards.ts";
import { hasAccountsPanel } from "../billing/tier-rules.ts";
import { AppError } from "../lib/errors.ts";
import type { SyncModule } from "./sync.module.ts";

// Path parameters are checked in the handler: a malformed id names nothing (404, not 422).
const postIdParams = z.object({ instagram_post_id: z.string() });
const mediaParams = z.object({ instagram_id: z.string() });
const postId = z.uuid();
const instagramId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const tags = ["sync"];

/** SPEC §7 /api/sync/*: thin — validate, authorize, call the service. */
/** What these routes use of the application. */
export interface SyncRouteDeps {
  guards: AuthGuards;
  sync: SyncModule["sync"];
}

export function registerSyncRoutes(app: FastifyInstance, ctx: SyncRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { runs, dashboard } = ctx.sync;
  const { guards } = ctx;
  const onRequest = guards.requireUser;
  const me = (req: Parameters<typeof principalOf>[0]) => principalOf(req).user.id;
  /** The per-account filter is a Pro and Agency feature: other plans see every account. */
  const scoped = <Q extends { account_id?: string | undefined }>(
    req: Parameters<typeof principalOf>[0],
    q: Q,
  ): Q =>
    q.account_id && !hasAccountsPanel(principalOf(req).user.subscription_tier)
      ? { ...q, account_id: undefined }
      : q;

  r.get(
    "/api/sync/sync-jobs",
    {
      onRequest,
      schema: { tags, querystring: syncJobsQuery, response: { 200: z.array(syncJob) } },
    },
    async (req) => runs.syncJobs(me(req), req.query.limit),
  );

  r.get(
    "/api/sync/posts",
    { onRequest, schema: { tags, querystring: postsQuery, response: { 200: postsResponse } } },
    async (req) => dashboard.posts(me(req), scoped(req, req.query)),
  );

  r.get(
    "/api/sync/backups",
    { onRequest, schema: { tags, querystring: backupsQuery, response: { 200: backupsResponse } } },
    async (req) => dashboard.backups(me(req), scoped(req, req.query)),
  );

  r.get(
    "/api/sync/dashboard/stats",
    { onRequest, schema: { tags, response: { 200: dashboardStats } } },
    async (req) => dashboard.stats(me(req)),
  );

  r.get(
    "/api/sync/status",
    { onRequest, schema: { tags, response: { 200: syncStatus } } },
    async (req) => runs.status(me(req)),
  );

  r.post(
    "/api/sync/start",
    { onRequest, schema: { tags, body: startSyncRequest, response: { 200: startSyncResponse } } },
    async (req) => runs.start(me(req), req.body.account_id),
  );

  r.post(
    "/api/sync/refresh-instagram-posts",
    { onRequest, schema: { tags, body: startSyncRequest, response: { 200: startSyncResponse } } },
    async (req) => runs.refreshPosts(me(req), req.body.account_id),
  );

  r.post(
    "/api/sync/backups/retry-failed",
    {
      onRequest,
      schema: {
        tags,
        body: retryFailedRequest,
        response: { 200: retryFailedResponse },
      },
    },
    async (req) => runs.retryFailed(me(req), scoped(req, req.body).account_id),
  );

  r.post(
    "/api/sync/backups/:instagram_post_id/retry",
    {
      onRequest,
      schema: { tags, params: postIdParams, response: { 200: retryBackupResponse } },
    },
    async (req) => {
      const parsed = postId.safeParse(req.params.instagram_post_id);
      if (!parsed.success) throw new AppError("not_found", syncMessages.backupNotFound);
      return runs.retry(me(req), parsed.data);
    },
  );

  r.get(
    "/api/sync/check-new-posts",
    { onRequest, schema: { tags, response: { 200: newPostsCheck } } },
    async (req) => dashboard.checkNewPosts(me(req)),
  );

  r.get(
    "/api/sync/instagram-media/:instagram_id",
    {
      onRequest,
      schema: {
        tags,
        params: mediaParams,
        response: { 200: z.any().describe("The media's bytes (an image; a video's thumbnail)") },
      },
    },
    async (req, reply) => {
      const parsed = instagramId.safeParse(req.params.instagram_id);
      if (!parsed.success) throw new AppError("not_found", syncMessages.postNotFound);
      const media = await dashboard.media(me(req), parsed.data);
      reply.header("content-type", media.contentType);
      reply.header("cache-control", "private, max-age=300");
      if (media.contentLength) reply.header("content-length", media.contentLength);
      return reply.send(media.stream);
    },
  );
}
