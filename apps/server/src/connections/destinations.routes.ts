import {
  DESTINATION_LABELS,
  destinationInfo,
  destinationsResponse,
  disconnectResponse,
  s3DestinationRequest,
  s3TestResponse,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import { PUBLIC } from "../http/openapi.ts";
import { AppError } from "../lib/errors.ts";
import { ConnectionError } from "./connection-error.ts";
import { callbackParams, callbackQuery } from "./connections.routes.ts";
import type { DestinationConnect, OAuthDestination } from "./destination-connect.service.ts";
import type { DestinationCustody } from "./destination-custody.service.ts";
import type { TokenCustody } from "./token-custody.service.ts";

const tags = ["destinations"];
const authorizationUrl = z.object({
  authorization_url: z.string().describe("The provider's consent page; send the browser there"),
});
const redirect = z.null().describe("Redirects the browser to /settings with the outcome");
const kindParams = z.object({ kind: z.string() });

export interface DestinationRouteDeps {
  connect: DestinationConnect;
  custody: Pick<DestinationCustody, "disconnect">;
  /** Google Drive keeps its own disconnection (`DELETE /api/oauth/google/disconnect`). */
  disconnectGoogle: TokenCustody["disconnectGoogle"];
  guards: AuthGuards;
}

/**
 * Connecting the destinations other than Drive (issue 38): Dropbox and OneDrive through OAuth,
 * S3-compatible storage by a tested form; the list Settings shows; disconnecting.
 */
export function registerDestinationRoutes(app: FastifyInstance, deps: DestinationRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { connect, custody } = deps;
  const onRequest = deps.guards.requireUser;
  const start = { dropbox: connect.startDropbox, onedrive: connect.startOneDrive };
  const complete = { dropbox: connect.completeDropbox, onedrive: connect.completeOneDrive };

  for (const kind of ["dropbox", "onedrive"] as const satisfies OAuthDestination[]) {
    r.get(
      `/api/oauth/${kind}/auth-url`,
      { onRequest, schema: { tags, response: { 200: authorizationUrl } } },
      async (req) => start[kind](principalOf(req).user.id),
    );

    // The provider sends the browser here; it leaves for Settings whatever happens.
    r.get(
      `/api/oauth/${kind}/callback`,
      {
        schema: { tags, security: PUBLIC, querystring: callbackQuery, response: { 302: redirect } },
      },
      async (req, reply) => {
        let target: string;
        try {
          target = await complete[kind](callbackParams(req.query));
        } catch (err) {
          const params = new URLSearchParams({ destination: kind });
          if (err instanceof AppError) {
            params.set("error", err.message);
            if (err instanceof ConnectionError) params.set("error_type", err.errorType);
          } else {
            req.log.error({ err }, "destination oauth callback failed");
            params.set("error", `Failed to connect ${DESTINATION_LABELS[kind]}. Please try again.`);
          }
          target = `/settings?${params.toString()}`;
        }
        return reply.header("Cache-Control", "no-store").redirect(target, 302);
      },
    );
  }

  r.get(
    "/api/destinations",
    { onRequest, schema: { tags, response: { 200: destinationsResponse } } },
    async (req) => connect.list(principalOf(req).user.id),
  );

  r.post(
    "/api/destinations/s3/test",
    { onRequest, schema: { tags, body: s3DestinationRequest, response: { 200: s3TestResponse } } },
    async (req) => connect.testS3(req.body),
  );

  r.post(
    "/api/destinations/s3",
    { onRequest, schema: { tags, body: s3DestinationRequest, response: { 200: destinationInfo } } },
    async (req) => connect.saveS3(principalOf(req).user.id, req.body),
  );

  r.delete(
    "/api/destinations/:kind",
    { onRequest, schema: { tags, params: kindParams, response: { 200: disconnectResponse } } },
    async (req) => {
      const userId = principalOf(req).user.id;
      const { kind } = req.params;
      if (kind === "google_drive") return deps.disconnectGoogle(userId);
      if (kind !== "dropbox" && kind !== "onedrive" && kind !== "s3") {
        throw new AppError("not_found", `Unknown destination "${kind.slice(0, 40)}"`);
      }
      return custody.disconnect(userId, kind);
    },
  );
}
