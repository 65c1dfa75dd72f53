import {
  startSyncRequest,
  startSyncResponse,
  syncJob,
  syncJobsQuery,
  syncStatus,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import type { SyncRunsService } from "./sync-runs.service.ts";

const tags = ["sync"];

/**
 * SPEC §7 /api/sync/*, the runs: thin — validate, authorize, call the service. The reads
 * (posts, backups, stats, new posts, media) are the library area's (library.routes.ts), the
 * retries the backups area's (backups.routes.ts).
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
}
