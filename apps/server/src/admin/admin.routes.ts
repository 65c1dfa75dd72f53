import {
  adminMessages,
  adminUser,
  adminUsersQuery,
  adminUsersResponse,
  deletionResponse,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import { AppError } from "../lib/errors.ts";
import type { AdminService } from "./admin.service.ts";

const params = z.object({ id: z.string() });
const uuid = z.uuid();
const tags = ["admin"];

/** The user id of the path; anything that is not an id names no user. */
function userId(p: { id: string }): string {
  const parsed = uuid.safeParse(p.id);
  if (!parsed.success) throw new AppError("not_found", adminMessages.notFound);
  return parsed.data;
}

/** What these routes use of the application. */
export interface AdminRouteDeps {
  admin: AdminService;
  guards: AuthGuards;
}

/** SPEC §7 admin calls: 401 without a session, 403 without admin rights. */
export function registerAdminRoutes(app: FastifyInstance, ctx: AdminRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { admin, guards } = ctx;
  const onRequest = guards.requireAdmin;

  r.get(
    "/api/admin/users",
    {
      onRequest,
      schema: { tags, querystring: adminUsersQuery, response: { 200: adminUsersResponse } },
    },
    async (req) => admin.listUsers(req.query),
  );

  r.put(
    "/api/admin/users/:id/toggle-admin",
    { onRequest, schema: { tags, params, response: { 200: adminUser } } },
    async (req) => admin.toggleAdmin(principalOf(req), userId(req.params)),
  );

  r.put(
    "/api/admin/users/:id/toggle-active",
    { onRequest, schema: { tags, params, response: { 200: adminUser } } },
    async (req) => admin.toggleActive(principalOf(req), userId(req.params)),
  );

  r.delete(
    "/api/admin/users/:id",
    { onRequest, schema: { tags, params, response: { 200: deletionResponse } } },
    async (req) => admin.deleteUser(principalOf(req), userId(req.params)),
  );
}
