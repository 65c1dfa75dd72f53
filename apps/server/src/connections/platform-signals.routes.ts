import {
  dataDeletionCodeParams,
  dataDeletionStatus,
  metaCallbackBody,
  metaDataDeletionAnswer,
  metaDeauthorizeAnswer,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { PUBLIC } from "../http/openapi.ts";
import type { Connections } from "./connections.parts.ts";

const tags = ["platform signals"];
/** A signed request or a security event token is a few hundred bytes. */
const BODY_LIMIT = 16 * 1024;

/**
 * The URLs to register with Meta's apps (Deauthorize and Data Deletion Request callbacks) and
 * Google's project (Cross-Account Protection receiver); the sandbox's apps are given them.
 */
export function platformSignalUrls(appUrl: string) {
  return {
    instagramDeauthorize: `${appUrl}/api/meta/instagram/deauthorize`,
    instagramDataDeletion: `${appUrl}/api/meta/instagram/data-deletion`,
    facebookDeauthorize: `${appUrl}/api/meta/facebook/deauthorize`,
    facebookDataDeletion: `${appUrl}/api/meta/facebook/data-deletion`,
    googleSecurityEvents: `${appUrl}/api/google/security-events`,
  };
}

/** What these routes use of the application. */
export interface PlatformSignalRouteDeps {
  connections: Pick<Connections, "signals">;
}

/**
 * Meta's Deauthorize and Data Deletion Request callbacks, one pair per Meta app (Instagram
 * Login, Facebook Login), and the receiver of Google's Cross-Account Protection events. Their
 * callers sign what they send; nobody signs in.
 */
export function registerPlatformSignalRoutes(app: FastifyInstance, ctx: PlatformSignalRouteDeps) {
  const { signals } = ctx.connections;
  app.register(async (scope) => {
    // Meta posts `signed_request=…` as a form; Google posts the token itself.
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: BODY_LIMIT },
      (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    scope.addContentTypeParser(
      ["application/secevent+jwt", "application/jwt", "text/plain"],
      { parseAs: "string", bodyLimit: BODY_LIMIT },
      (_req, body, done) => done(null, String(body).trim()),
    );
    const r = scope.withTypeProvider<ZodTypeProvider>();
    for (const metaApp of ["instagram", "facebook"] as const) {
      r.post(
        `/api/meta/${metaApp}/deauthorize`,
        {
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            security: PUBLIC,
            body: metaCallbackBody,
            response: { 200: metaDeauthorizeAnswer },
          },
        },
        async (req) => {
          const { accounts } = await signals.deauthorize(metaApp, req.body.signed_request);
          req.log.info({ metaApp, accounts }, "Meta deauthorize callback");
          return { received: true as const };
        },
      );
      r.post(
        `/api/meta/${metaApp}/data-deletion`,
        {
          bodyLimit: BODY_LIMIT,
          schema: {
            tags,
            security: PUBLIC,
            body: metaCallbackBody,
            response: { 200: metaDataDeletionAnswer },
          },
        },
        async (req) => signals.requestDeletion(metaApp, req.body.signed_request),
      );
    }
    r.get(
      "/api/meta/data-deletion/:code",
      {
        schema: {
          tags,
          security: PUBLIC,
          params: dataDeletionCodeParams,
          response: { 200: dataDeletionStatus },
        },
      },
      async (req) => signals.deletionStatus(req.params.code),
    );
    r.post(
      "/api/google/security-events",
      {
        bodyLimit: BODY_LIMIT,
        schema: {
          tags,
          security: PUBLIC,
          body: z.string().min(1).max(BODY_LIMIT),
          response: { 202: z.null() },
        },
      },
      async (req, reply) => {
        const { marked } = await signals.googleSecurityEvent(req.body);
        req.log.info({ marked }, "Google security event");
        return reply.code(202).send(null);
      },
    );
  });
}
