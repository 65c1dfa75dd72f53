import { adminMessages, adminUsersQuery } from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.ts";
import { principalOf } from "../http/auth.plugin.ts";
import { HttpError, parseOr422 } from "../lib/errors.ts";

const idParams = z.object({ id: z.uuid() });

/** The user id of the path; anything that is not an id names no user. */
function userId(params: unknown): string {
  const parsed = idParams.safeParse(params);
  if (!parsed.success) throw new HttpError(404, adminMessages.notFound);
  return parsed.data.id;
}

/** SPEC §7 admin calls: 401 without a session, 403 without admin rights. */
export function registerAdminRoutes(app: FastifyInstance, ctx: AppContext) {
  const { admin, guards } = ctx;
  const adminOnly = { preHandler: guards.requireAdmin };

  app.get("/api/admin/users", adminOnly, async (req) =>
    admin.listUsers(parseOr422(adminUsersQuery, req.query)),
  );

  app.put("/api/admin/users/:id/toggle-admin", adminOnly, async (req) =>
    admin.toggleAdmin(principalOf(req), userId(req.params)),
  );

  app.put("/api/admin/users/:id/toggle-active", adminOnly, async (req) =>
    admin.toggleActive(principalOf(req), userId(req.params)),
  );

  app.delete("/api/admin/users/:id", adminOnly, async (req) =>
    admin.deleteUser(principalOf(req), userId(req.params)),
  );
}
