import {
  changeEmailRequest,
  changePasswordRequest,
  forgotPasswordRequest,
  loginRequest,
  messageResponse,
  profileUpdateRequest,
  registerRequest,
  resetPasswordRequest,
  tokenResponse,
  user,
  verifyEmailRequest,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { clientOf } from "../http/client-address.ts";
import { PUBLIC } from "../http/openapi.ts";
import type { AccountMailService } from "./account-mail.service.ts";
import type { AuthGuards } from "./auth.guards.ts";
import { principalOf } from "./auth.guards.ts";
import type { AuthService } from "./auth.service.ts";

const tags = ["auth"];

/** What these routes use of the application. */
export interface AuthRouteDeps {
  auth: AuthService;
  accountMail: AccountMailService;
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
      // The same answer and work for a taken address (issue 35); the job mails its owner.
      const { profile, created } = await auth.register(req.body, req.ip);
      // A new account works at once; a banner asks the user to open the mailed link.
      await ctx.accountMail.afterRegistration(req.body.email, created);
      return reply.code(201).send(profile);
    },
  );

  r.post(
    "/api/auth/login",
    { schema: { tags, security: PUBLIC, body: loginRequest, response: { 200: tokenResponse } } },
    async (req) => {
      const token = await auth.login(req.body, {
        ip: clientOf(req),
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

  const { accountMail } = ctx;
  const ok = { 200: messageResponse };

  r.post(
    "/api/auth/forgot-password",
    { schema: { tags, security: PUBLIC, body: forgotPasswordRequest, response: ok } },
    async (req) => accountMail.requestPasswordReset(req.body.email, clientOf(req)),
  );

  r.post(
    "/api/auth/reset-password",
    { schema: { tags, security: PUBLIC, body: resetPasswordRequest, response: ok } },
    async (req) => accountMail.resetPassword(req.body.token, req.body.password),
  );

  r.post(
    "/api/auth/verify-email",
    { schema: { tags, security: PUBLIC, body: verifyEmailRequest, response: ok } },
    async (req) => accountMail.verifyEmail(req.body.token),
  );

  r.post(
    "/api/auth/verify-email/resend",
    { onRequest, schema: { tags, response: ok } },
    async (req) => accountMail.resendVerification(principalOf(req).user, clientOf(req)),
  );

  r.post(
    "/api/auth/me/email",
    { onRequest, schema: { tags, body: changeEmailRequest, response: ok } },
    async (req) => accountMail.requestEmailChange(principalOf(req).user, req.body, clientOf(req)),
  );

  r.post(
    "/api/auth/me/password",
    { onRequest, schema: { tags, body: changePasswordRequest, response: ok } },
    async (req) =>
      accountMail.changePassword(
        principalOf(req),
        req.body.current_password,
        req.body.new_password,
      ),
  );
}
