import {
  backupsQuery,
  postsQuery,
  startSyncRequest,
  syncJobsQuery,
  syncMessages,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { hasAccountsPanel } from "../billing/tier-rules.ts";
import type { AppContext } from "../context.ts";
import { principalOf } from "../http/auth.plugin.ts";
import { HttpError, parseOr422 } from "../lib/errors.ts";

const postIdParams = z.object({ instagram_post_id: z.uuid() });
const mediaParams = z.object({ instagram_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });

/** SPEC §7 /api/sync/*: thin — validate, authorize, call the service. */
export function registerSyncRoutes(app: FastifyInstance, ctx: AppContext) {
  const { sync, guards } = ctx;
  const user = { preHandler: guards.requireUser };
  const me = (req: Parameters<typeof principalOf>[0]) => principalOf(req).user.id;
  /** The per-account filter is a Pro and Agency feature: other plans see every account. */
  const scoped = <Q extends { account_id?: string | undefined }>(
    req: Parameters<typeof principalOf>[0],
    q: Q,
  ): Q =>
    q.account_id && !hasAccountsPanel(principalOf(req).user.subscription_tier)
      ? { ...q, account_id: undefined }
      : q;

  app.get("/api/sync/sync-jobs", user, async (req) => {
    const q = parseOr422(syncJobsQuery, req.query);
    return sync.syncJobs(me(req), q.limit);
  });

  app.get("/api/sync/posts", user, async (req) =>
    sync.posts(me(req), scoped(req, parseOr422(postsQuery, req.query))),
  );

  app.get("/api/sync/backups", user, async (req) =>
    sync.backups(me(req), scoped(req, parseOr422(backupsQuery, req.query))),
  );

  app.get("/api/sync/dashboard/stats", user, async (req) => sync.stats(me(req)));

  app.get("/api/sync/status", user, async (req) => sync.status(me(req)));

  app.post("/api/sync/start", user, async (req) => {
    const body = parseOr422(startSyncRequest, req.body ?? undefined);
    return sync.start(me(req), body.account_id);
  });

  app.post("/api/sync/refresh-instagram-posts", user, async (req) => {
    const body = parseOr422(startSyncRequest, req.body ?? undefined);
    return sync.refreshPosts(me(req), body.account_id);
  });

  app.post("/api/sync/backups/:instagram_post_id/retry", user, async (req) => {
    const parsed = postIdParams.safeParse(req.params);
    if (!parsed.success) throw new HttpError(404, syncMessages.backupNotFound);
    return sync.retry(me(req), parsed.data.instagram_post_id);
  });

  app.get("/api/sync/check-new-posts", user, async (req) => sync.checkNewPosts(me(req)));

  app.get("/api/sync/instagram-media/:instagram_id", user, async (req, reply) => {
    const parsed = mediaParams.safeParse(req.params);
    if (!parsed.success) throw new HttpError(404, syncMessages.postNotFound);
    const media = await sync.media(me(req), parsed.data.instagram_id);
    reply.header("content-type", media.contentType);
    reply.header("cache-control", "private, max-age=300");
    if (media.contentLength) reply.header("content-length", media.contentLength);
    return reply.send(media.stream);
  });
}
