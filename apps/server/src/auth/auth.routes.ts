import {
  deleteAccountRequest,
  deletionResponse,
  loginRequest,
  profileUpdateRequest,
  registerRequest,
  tokenResponse,
  user,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppContext } from "../context.ts";
import { principalOf } from "../http/auth.plugin.ts";
import { PUBLIC } from "../http/openapi.ts";

const tags = ["auth"];

export function registerAuthRoutes(app: FastifyInstance, ctx: AppContext) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { auth, guards } = ctx;
  const onRequest = guards.requireUser;

  r.post(
    "/api/auth/register",
    { schema: { tags, security: PUBLIC, body: registerRequest, response: { 201: user } } },
    async (req, reply) => {
      const created = await auth.register(req.body);
      return reply.code(201).send(await auth.profile(created));
    },
  );

  r.post(
    "/api/auth/login",
    { schema: { tags, security: PUBLIC, body: loginRequest, response: { 200: tokenResponse } } },
    async (req) => {
      const token = await auth.login(req.body, {
        ip: req.ip,
        userAgent: req.headers["user-agent"] ?? null,
      });
      return { access_token: token, token_type: "bearer" as const };
    },
  );

  r.get("/api/auth/me", { onRequest, schema: { tags, response: { 200: user } } }, async (req) =>
    auth.profile(principalOf(req).user),
  );

  r.patch(
    "/api/auth/me",
    { onRequest, schema: { tags, body: profileUpdateRequest, response: { 200: user } } },
    async (req) =>
      auth.profile(await auth.updateProfile(principalOf(req).user.id, req.body.full_name)),
  );

  // Settings → Profile → Delete my account, confirmed with the password.
  r.delete(
    "/api/auth/me",
    {
      onRequest,
      schema: { tags, body: deleteAccountRequest, response: { 200: deletionResponse } },
    },
    async (req) => {
      const { user: me } = principalOf(req);
      await auth.verifyPassword(me, req.body.password);
      return ctx.userDeletion.deleteUser(me);
    },
  );

  r.post(
    "/api/auth/logout",
    { onRequest, schema: { tags, response: { 204: z.null().describe("Signed out") } } },
    async (req, reply) => {
      await auth.logout(principalOf(req));
      return reply.code(204).send(null);
    },
  );

  r.post(
    "/api/auth/refresh",
    { onRequest, schema: { tags, response: { 200: tokenResponse } } },
    async (req) => ({
      access_token: await auth.refresh(principalOf(req)),
      token_type: "bearer" as const,
    }),
  );
}
