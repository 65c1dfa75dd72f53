import {
  disconnectInstagramQuery,
  instagramLoginQuery,
  type OAuthProvider,
  oauthCallbackRequest,
} from "@keepsake/contracts";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { principalOf } from "../http/auth.plugin.ts";
import { HttpError, parseOr422 } from "../lib/errors.ts";
import { ConnectionError } from "./connection-error.ts";
import type { CallbackParams } from "./connections.service.ts";

const LABEL: Record<OAuthProvider, string> = {
  instagram: "Instagram",
  facebook: "Instagram via Facebook",
  google: "Google Drive",
};

function callbackParams(query: unknown): CallbackParams {
  const q = (query ?? {}) as Record<string, unknown>;
  const s = (k: string) => (typeof q[k] === "string" ? (q[k] as string) : undefined);
  return {
    code: s("code"),
    state: s("state"),
    error: s("error"),
    error_description: s("error_description"),
  };
}

export function registerConnectionRoutes(app: FastifyInstance, ctx: AppContext) {
  const { connections, guards } = ctx;
  const user = { preHandler: guards.requireUser };
  const complete = {
    instagram: connections.completeInstagram,
    facebook: connections.completeFacebook,
    google: connections.completeGoogle,
  } satisfies Record<OAuthProvider, unknown>;

  app.get("/api/oauth/instagram/login", user, async (req) => {
    const q = parseOr422(instagramLoginQuery, req.query);
    return connections.startInstagram(principalOf(req).user.id, q.account_type);
  });
  app.get("/api/oauth/facebook/auth-url", user, async (req) =>
    connections.startFacebook(principalOf(req).user.id),
  );
  app.get("/api/oauth/google/auth-url", user, async (req) =>
    connections.startGoogle(principalOf(req).user.id),
  );

  for (const provider of ["instagram", "facebook", "google"] as const) {
    // The provider sends the browser here; it leaves for the dashboard whatever happens.
    app.get(`/api/oauth/${provider}/callback`, async (req, reply) => {
      let target: string;
      try {
        target = (await complete[provider](callbackParams(req.query))).redirect_to;
      } catch (err) {
        const params = new URLSearchParams();
        if (err instanceof HttpError) {
          params.set("error", err.message);
          if (err instanceof ConnectionError) params.set("error_type", err.errorType);
        } else {
          req.log.error({ err }, "oauth callback failed");
          params.set("error", `Failed to connect ${LABEL[provider]}. Please try again.`);
        }
        target = `/dashboard?${params.toString()}`;
      }
      return reply.header("Cache-Control", "no-store").redirect(target, 302);
    });

    // For a client that holds the code itself; failures carry `error_type` beside `detail`.
    app.post(
      `/api/oauth/${provider}/callback`,
      user,
      async (req: FastifyRequest, reply: FastifyReply) => {
        const body = parseOr422(oauthCallbackRequest, req.body);
        try {
          return await complete[provider](body, principalOf(req).user.id);
        } catch (err) {
          if (err instanceof ConnectionError) {
            return reply.code(err.status).send({ detail: err.message, error_type: err.errorType });
          }
          throw err;
        }
      },
    );
  }

  app.get("/api/oauth/status", user, async (req) => connections.status(principalOf(req).user.id));
  app.get("/api/oauth/connection-health", user, async (req) =>
    connections.health(principalOf(req).user.id),
  );
  app.get("/api/oauth/connection-status", user, async (req) =>
    connections.connectionStatus(principalOf(req).user.id),
  );
  app.post("/api/oauth/refresh-connections", user, async (req) =>
    connections.refreshConnections(principalOf(req).user.id),
  );

  app.delete("/api/oauth/instagram/disconnect", user, async (req) => {
    const q = parseOr422(disconnectInstagramQuery, req.query);
    return connections.disconnectInstagram(principalOf(req).user.id, q.account_id);
  });
  app.delete("/api/oauth/google/disconnect", user, async (req) =>
    connections.disconnectGoogle(principalOf(req).user.id),
  );
}
