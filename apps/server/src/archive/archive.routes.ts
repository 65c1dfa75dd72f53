import {
  archiveStats,
  archiveStatsQuery,
  postHistory,
  postHistoryParams,
  statsCsvQuery,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import { AppError } from "../lib/errors.ts";
import type { ArchiveService } from "./archive.service.ts";

const tags = ["archive"];
const accountId = z.uuid();
const instagramId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/** What these routes use of the application. */
export interface ArchiveRouteDeps {
  guards: AuthGuards;
  archive: Pick<ArchiveService, "history" | "stats" | "statsCsv">;
}

/** /api/archive: a post's engagement history, the accounts' charts and the stats CSV (issue 30). */
export function registerArchiveRoutes(app: FastifyInstance, ctx: ArchiveRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const onRequest = ctx.guards.requireUser;
  const me = (req: Parameters<typeof principalOf>[0]) => principalOf(req).user.id;

  r.get(
    "/api/archive/posts/:account_id/:instagram_id/history",
    { onRequest, schema: { tags, params: postHistoryParams, response: { 200: postHistory } } },
    async (req) => {
      // A malformed id names nothing: 404, not 422.
      const a = accountId.safeParse(req.params.account_id);
      const i = instagramId.safeParse(req.params.instagram_id);
      if (!a.success || !i.success) throw new AppError("not_found", "Post not found");
      return ctx.archive.history(a.data, i.data, me(req));
    },
  );

  r.get(
    "/api/archive/stats",
    {
      onRequest,
      schema: { tags, querystring: archiveStatsQuery, response: { 200: archiveStats } },
    },
    async (req) => ctx.archive.stats(me(req), req.query.account_id),
  );

  r.get(
    "/api/archive/stats.csv",
    {
      onRequest,
      schema: {
        tags,
        querystring: statsCsvQuery,
        response: {
          200: z
            .string()
            .describe(
              "One row per post per reading (view=history, the default), or per post with its latest reading (view=snapshot), as CSV",
            ),
        },
      },
    },
    async (req, reply) => {
      const view = req.query.view ?? "history";
      const csv = await ctx.archive.statsCsv(me(req), req.query.account_id, view);
      const name = view === "snapshot" ? "keepsake-stats-snapshot.csv" : "keepsake-stats.csv";
      reply.header("content-type", "text/csv; charset=utf-8");
      reply.header("content-disposition", `attachment; filename="${name}"`);
      return csv;
    },
  );
}
