import {
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
import type { SyncRunsService } from "./sync-runs.service.ts";

// Path parameters are checked in the handler: a malformed id names nothing (404, not 422).
const postIdParams = z.object({ instagram_post_id: z.string() });
const postId = z.uuid();
const tags = ["sync"];

/** The per-account filter is a Pro and Agency feature: other plans see every account. */
export const scopedToPlan = <Q extends { account_id?: string | undefined }>(
  req: Parameters<typeof principalOf>[0],
  q: Q,
): Q =>
  q.account_id && !hasAccountsPanel(principalOf(req).user.subscription_tier)
    ? { ...q, account_id: undefined }
    : q;

/**
 * SPEC §7 /api/sync/*, the runs: thin — validate, authorize, call the service. The reads
 * (posts, backups, stats, new posts, media) are the library area's (library.routes.ts).
 */
/** What these routes use of the application. */
export interface SyncRouteDeps {
  guards: AuthGuards;
  sync: { runs: SyncRunsService };
}

export function registerSyncRoutes(app: FastifyInstance, ctx: SyncRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { runs } = ctx.sync;
  const { guards } = ctx;
  const onRequest = guards.requireUser;
  const me = (req: Parameters<typeof principalOf>[0]) => principalOf(req).user.id;
  const scoped = scopedToPlan;

  r.get(
    "/api/sync/sync-jobs",
    {
      onRequest,
      schema: { tags, querystring: syncJobsQuery, response: { 200: z.array(syncJob) } },
    },
    async (req) => runs.syncJobs(me(req), req.query.limit),
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
}
