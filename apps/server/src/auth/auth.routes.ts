import {
  loginRequest,
  profileUpdateRequest,
  registerRequest,
  tokenResponse,
  user,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { PUBLIC } from "../http/openapi.ts";
import type { AuthGuards } from "./auth.guards.ts";
import { principalOf } from "./auth.guards.ts";
import type { AuthService } from "./auth.service.ts";

const tags = ["auth"];

/** What these routes use of the application. */
export interface AuthRouteDeps {
  auth: AuthService;
  guards: AuthGuards;
}

export function registerAuthRoutes(app: FastifyInstance, ctx: AuthRouteDeps) {
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
