import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../lib/errors.ts";
import type { AuthService, Principal } from "./auth.service.ts";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

function bearer(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(.+)$/i.exec(h);
  return m?.[1]?.trim() || null;
}

/** preHandler hooks: `requireUser` answers 401 without a live session, `requireAdmin` 403. */
export function authGuards(auth: AuthService) {
  async function requireUser(req: FastifyRequest, _reply: FastifyReply) {
    const token = bearer(req);
    if (!token) throw new AppError("unauthenticated", "Not authenticated", { challenge: "Bearer" });
    req.principal = await auth.authenticate(token);
  }
  async function requireAdmin(req: FastifyRequest, reply: FastifyReply) {
    await requireUser(req, reply);
    if (!req.principal?.user.is_admin) throw new AppError("forbidden", "Admin privileges required");
  }
  return { requireUser, requireAdmin };
}

/** The caller of a route behind `requireUser`. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new AppError("unauthenticated", "Not authenticated");
  return req.principal;
}
export type AuthGuards = ReturnType<typeof authGuards>;
