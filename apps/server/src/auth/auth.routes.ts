import {
  deleteAccountRequest,
  loginRequest,
  profileUpdateRequest,
  registerRequest,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { principalOf } from "../http/auth.plugin.ts";
import { parseOr422 } from "../lib/errors.ts";

export function registerAuthRoutes(app: FastifyInstance, ctx: AppContext) {
  const { auth, guards } = ctx;

  app.post("/api/auth/register", async (req, reply) => {
    const input = parseOr422(registerRequest, req.body);
    const user = await auth.register(input);
    return reply.code(201).send(await auth.profile(user));
  });

  app.post("/api/auth/login", async (req) => {
    const input = parseOr422(loginRequest, req.body);
    const token = await auth.login(input, {
      ip: req.ip,
      userAgent: req.headers["user-agent"] ?? null,
    });
    return { access_token: token, token_type: "bearer" as const };
  });

  app.get("/api/auth/me", { preHandler: guards.requireUser }, async (req) =>
    auth.profile(principalOf(req).user),
  );

  app.patch("/api/auth/me", { preHandler: guards.requireUser }, async (req) => {
    const input = parseOr422(profileUpdateRequest, req.body);
    return auth.profile(await auth.updateProfile(principalOf(req).user.id, input.full_name));
  });

  // Settings → Profile → Delete my account, confirmed with the password.
  app.delete("/api/auth/me", { preHandler: guards.requireUser }, async (req) => {
    const { password } = parseOr422(deleteAccountRequest, req.body);
    const { user } = principalOf(req);
    await auth.verifyPassword(user, password);
    return ctx.userDeletion.deleteUser(user);
  });

  app.post("/api/auth/logout", { preHandler: guards.requireUser }, async (req, reply) => {
    await auth.logout(principalOf(req));
    return reply.code(204).send();
  });

  app.post("/api/auth/refresh", { preHandler: guards.requireUser }, async (req) => ({
    access_token: await auth.refresh(principalOf(req)),
    token_type: "bearer" as const,
  }));
}
