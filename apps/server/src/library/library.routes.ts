import {
  backupsQuery,
  backupsResponse,
  dashboardStats,
  dashboardStatsQuery,
  newPostsCheck,
  postsQuery,
  postsResponse,
  syncMessages,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import { scopedToPlan } from "../billing/index.ts";
import { AppError } from "../lib/errors.ts";
import type { DashboardService } from "./dashboard.service.ts";

// Path parameters are checked in the handler: a malformed id names nothing (404, not 422).
const mediaParams = z.object({ instagram_id: z.string() });
const instagramId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const tags = ["sync"];

/**
 * SPEC §7 /api/sync/*, the reads: the posts grid, the Backups list, the dashboard's stats,
 * the new-posts check and the caller's media. Thin — validate, authorize, call the service.
 */
export interface LibraryRouteDeps {
  guards: AuthGuards;
  sync: { dashboard: DashboardService };
}

export function registerLibraryRoutes(app: FastifyInstance, ctx: LibraryRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { dashboard } = ctx.sync;
  const onRequest = ctx.guards.requireUser;
  const me = (req: Parameters<typeof principalOf>[0]) => principalOf(req).user.id;
  const scoped = scopedToPlan;

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
    {
      onRequest,
      schema: { tags, querystring: dashboardStatsQuery, response: { 200: dashboardStats } },
    },
    async (req) => dashboard.stats(me(req), scoped(req, req.query).account_id),
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
