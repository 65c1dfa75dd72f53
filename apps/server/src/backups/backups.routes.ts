import {
  accountDestinationRequest,
  accountDestinationResponse,
  retryBackupResponse,
  retryFailedRequest,
  retryFailedResponse,
  syncMessages,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import { scopedToPlan } from "../billing/index.ts";
import { AppError } from "../lib/errors.ts";
import type { BackupsService } from "./backups.service.ts";
import type { DestinationSwitch } from "./destination-switch.ts";

// Path parameters are checked in the handler: a malformed id names nothing (404, not 422).
const postIdParams = z.object({ instagram_post_id: z.string() });
const postId = z.uuid();
const tags = ["sync"];

/** SPEC §7 /api/sync/backups/…/retry: thin — validate, authorize, call the service. */
export interface BackupsRouteDeps {
  guards: AuthGuards;
  backups: BackupsService;
  destinations: DestinationSwitch;
}

export function registerBackupsRoutes(app: FastifyInstance, ctx: BackupsRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { backups } = ctx;
  const onRequest = ctx.guards.requireUser;
  const me = (req: Parameters<typeof principalOf>[0]) => principalOf(req).user.id;
  const scoped = scopedToPlan;

  r.post(
    "/api/sync/backups/retry-failed",
    {
      onRequest,
      schema: {
        tags,
        body: retryFailedRequest,
        response: { 200: retryFailedResponse },
      },
    },
    async (req) => backups.retryFailed(me(req), scoped(req, req.body).account_id),
  );

  r.post(
    "/api/sync/backups/:instagram_post_id/retry",
    {
      onRequest,
      schema: { tags, params: postIdParams, response: { 200: retryBackupResponse } },
    },
    async (req) => {
      const parsed = postId.safeParse(req.params.instagram_post_id);
      if (!parsed.success) throw new AppError("not_found", syncMessages.backupNotFound);
      return backups.retry(me(req), parsed.data);
    },
  );

  // Issue 38: where one account is backed up; its history is copied to the new destination.
  r.put(
    "/api/oauth/instagram/accounts/:account_id/destination",
    {
      onRequest,
      schema: {
        tags: ["oauth"],
        params: z.object({ account_id: z.string() }),
        body: accountDestinationRequest,
        response: { 200: accountDestinationResponse },
      },
    },
    async (req) => {
      const id = z.uuid().safeParse(req.params.account_id);
      if (!id.success) throw new AppError("not_found", syncMessages.accountNotFound);
      return ctx.destinations.switchAccount(me(req), id.data, req.body.destination);
    },
  );
}
