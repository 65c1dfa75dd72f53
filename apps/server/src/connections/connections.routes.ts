import {
  authUrlResponse,
  connectionHealth,
  connectionStatus,
  disconnectInstagramQuery,
  disconnectResponse,
  instagramLoginQuery,
  type OAuthProvider,
  oauthCallbackError,
  oauthCallbackRequest,
  oauthCallbackResponse,
  oauthStatus,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import { statusOf } from "../http/errors.ts";
import { PUBLIC } from "../http/openapi.ts";
import { AppError } from "../lib/errors.ts";
import { ConnectionError } from "./connection-error.ts";
import type { Connections } from "./connections.parts.ts";
import type { CallbackParams } from "./oauth.service.ts";

const LABEL: Record<OAuthProvider, string> = {
  instagram: "Instagram",
  facebook: "Instagram via Facebook",
  google: "Google Drive",
};

const tags = ["oauth"];
/** What a provider sends back; read loosely, since the browser leaves for the dashboard anyway. */
export const callbackQuery = z.object({
  code: z.any().optional(),
  state: z.any().optional(),
  error: z.any().optional(),
  error_description: z.any().optional(),
});
const switchQuery = z.object({
  account_id: z
    .uuid()
    .optional()
    .describe("The account to switch (the dashboard names it on return)"),
  keep_comments: z.enum(["true", "false"]).optional(),
});
const redirect = z.null().describe("Redirects the browser to /dashboard with the outcome");

export function callbackParams(query: unknown): CallbackParams {
  const q = (query ?? {}) as Record<string, unknown>;
  const s = (k: string) => (typeof q[k] === "string" ? (q[k] as string) : undefined);
  return {
    code: s("code"),
    state: s("state"),
    error: s("error"),
    error_description: s("error_description"),
  };
}

/** What these routes use of the application. */
export interface ConnectionsRouteDeps {
  connections: Connections;
  guards: AuthGuards;
}

export function registerConnectionRoutes(app: FastifyInstance, ctx: ConnectionsRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { oauth, health, profiles, tokens } = ctx.connections;
  const { guards } = ctx;
  const onRequest = guards.requireUser;
  const authUrl = { onRequest, schema: { tags, response: { 200: authUrlResponse } } };
  const complete = {
    instagram: oauth.completeInstagram,
    facebook: oauth.completeFacebook,
    google: oauth.completeGoogle,
  } satisfies Record<OAuthProvider, unknown>;

  r.get(
    "/api/oauth/instagram/login",
    { ...authUrl, schema: { ...authUrl.schema, querystring: instagramLoginQuery } },
    async (req) => oauth.startInstagram(principalOf(req).user.id, req.query.account_type),
  );
  r.get("/api/oauth/facebook/auth-url", authUrl, async (req) =>
    oauth.startFacebook(principalOf(req).user.id),
  );
  // An account connected through Instagram Login whose stories Instagram refuses: the same
  // account through Facebook Login (it adds no account, so the plan's limit does not stop it).
  // `keep_comments=true` (the account keeps comments) asks Facebook for that permission too.
  r.get(
    "/api/oauth/facebook/switch-url",
    { ...authUrl, schema: { ...authUrl.schema, querystring: switchQuery } },
    async (req) =>
      oauth.startSwitch(
        principalOf(req).user.id,
        req.query.account_id,
        req.query.keep_comments === "true",
      ),
  );
  r.get("/api/oauth/google/auth-url", authUrl, async (req) =>
    oauth.startGoogle(principalOf(req).user.id),
  );

  for (const provider of ["instagram", "facebook", "google"] as const) {
    // The provider sends the browser here; it leaves for the dashboard whatever happens.
    r.get(
      `/api/oauth/${provider}/callback`,
      {
        schema: { tags, security: PUBLIC, querystring: callbackQuery, response: { 302: redirect } },
      },
      async (req, reply) => {
        let target: string;
        try {
          target = (await complete[provider](callbackParams(req.query))).redirect_to;
        } catch (err) {
          const params = new URLSearchParams();
          if (err instanceof AppError) {
            params.set("error", err.message);
            if (err instanceof ConnectionError) params.set("error_type", err.errorType);
          } else {
            req.log.error({ err }, "oauth callback failed");
            params.set("error", `Failed to connect ${LABEL[provider]}. Please try again.`);
          }
          target = `/dashboard?${params.toString()}`;
        }
        return reply.header("Cache-Control", "no-store").redirect(target, 302);
      },
    );

    // For a client that holds the code itself; failures carry `error_type` beside `detail`.
    r.post(
      `/api/oauth/${provider}/callback`,
      {
        onRequest,
        schema: {
          tags,
          body: oauthCallbackRequest,
          response: { 200: oauthCallbackResponse, "4XX": oauthCallbackError },
        },
      },
      async (req, reply) => {
        try {
          return await complete[provider](req.body, principalOf(req).user.id);
        } catch (err) {
          if (err instanceof ConnectionError) {
            return reply
              .code(statusOf(err.kind))
              .send({ detail: err.message, error_type: err.errorType });
          }
          throw err;
        }
      },
    );
  }

  const answers = <T extends z.ZodType>(schema: T) => ({
    onRequest,
    schema: { tags, response: { 200: schema } },
  });
  r.get("/api/oauth/status", answers(oauthStatus), async (req) =>
    health.status(principalOf(req).user.id),
  );
  r.get("/api/oauth/connection-health", answers(connectionHealth), async (req) =>
    health.health(principalOf(req).user.id),
  );
  r.get("/api/oauth/connection-status", answers(connectionStatus), async (req) =>
    health.connectionStatus(principalOf(req).user.id),
  );
  r.post("/api/oauth/refresh-connections", answers(connectionHealth), async (req) =>
    health.refreshConnections(principalOf(req).user.id),
  );

  r.delete(
    "/api/oauth/instagram/disconnect",
    {
      onRequest,
      schema: {
        tags,
        querystring: disconnectInstagramQuery,
        response: { 200: disconnectResponse },
      },
    },
    async (req) => profiles.disconnectInstagram(principalOf(req).user.id, req.query.account_id),
  );
  r.delete("/api/oauth/google/disconnect", answers(disconnectResponse), async (req) =>
    tokens.disconnectGoogle(principalOf(req).user.id),
  );
}
