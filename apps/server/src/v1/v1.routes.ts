import {
  dashboardStats,
  errorResponse,
  instagramAccountsResponse,
  retryBackupResponse,
  startSyncResponse,
  syncHealth,
  syncMessages,
  v1BackupsQuery,
  v1BackupsResponse,
  v1PostIdParams,
  v1PostsQuery,
  v1PostsResponse,
  v1StartSyncHeaders,
  v1StartSyncRequest,
  v1SyncJobsQuery,
  v1SyncJobsResponse,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AccountsService } from "../accounts/index.ts";
import type { ApiKeysService } from "../api-keys/index.ts";
import type { BackupsService } from "../backups/index.ts";
import type { HealthService } from "../health/index.ts";
import { V1_PREFIX } from "../http/openapi.ts";
import { AppError } from "../lib/errors.ts";
import type { CursorListingService, DashboardService } from "../library/index.ts";
import type { SyncRunsService } from "../sync/index.ts";
import type { apiKeyGuard } from "./v1.auth.ts";
import { callerOf } from "./v1.auth.ts";

const errors = {
  401: errorResponse.describe("Missing, invalid or revoked API key"),
  403: errorResponse.describe("The plan does not include API access"),
  422: errorResponse.describe("Invalid parameters"),
  429: errorResponse.describe("Rate limit exceeded; see Retry-After"),
};
const uuid = z.uuid();

/**
 * The public API: what an API key's owner may read and start. Thin, like every area's routes:
 * the services are the session API's, scoped to the key's owner. Outgoing webhooks will get
 * their own routes here (`/api/v1/webhooks`).
 */
/** What these routes use of the application. */
export interface V1RouteDeps {
  accounts: AccountsService;
  apiKeys: ApiKeysService;
  listing: CursorListingService;
  requireApiKey: ReturnType<typeof apiKeyGuard>;
  sync: { runs: SyncRunsService; dashboard: DashboardService };
  backups: BackupsService;
  health: HealthService;
}

export function registerV1Routes(app: FastifyInstance, ctx: V1RouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { runs, dashboard } = ctx.sync;
  const { listing, apiKeys } = ctx;
  // The key is checked first (onRequest): a request without one is a 401 whatever it asks.
  const onRequest = ctx.requireApiKey;
  const me = (req: Parameters<typeof callerOf>[0]) => callerOf(req).userId;
  const tags = ["v1"];

  r.get(
    `${V1_PREFIX}/accounts`,
    {
      onRequest,
      schema: {
        tags,
        summary: "Connected Instagram accounts",
        response: { 200: instagramAccountsResponse, ...errors },
      },
    },
    async (req) => {
      const { userId, tier } = callerOf(req);
      return ctx.accounts.list({ id: userId, subscription_tier: tier });
    },
  );

  r.get(
    `${V1_PREFIX}/posts`,
    {
      onRequest,
      schema: {
        tags,
        summary: "Posts, newest first, a page at a time",
        querystring: v1PostsQuery,
        response: { 200: v1PostsResponse, ...errors },
      },
    },
    async (req) => listing.posts(me(req), req.query),
  );

  r.get(
    `${V1_PREFIX}/backups`,
    {
      onRequest,
      schema: {
        tags,
        summary: "Backups, newest first, a page at a time",
        querystring: v1BackupsQuery,
        response: { 200: v1BackupsResponse, ...errors },
      },
    },
    async (req) => listing.backups(me(req), req.query),
  );

  r.get(
    `${V1_PREFIX}/sync-jobs`,
    {
      onRequest,
      schema: {
        tags,
        summary: "Recent sync jobs, newest first",
        querystring: v1SyncJobsQuery,
        response: { 200: v1SyncJobsResponse, ...errors },
      },
    },
    async (req) => ({ sync_jobs: await runs.syncJobs(me(req), req.query.limit) }),
  );

  r.get(
    `${V1_PREFIX}/stats`,
    {
      onRequest,
      schema: {
        tags,
        summary: "Dashboard statistics",
        response: { 200: dashboardStats, ...errors },
      },
    },
    async (req) => dashboard.stats(me(req)),
  );

  r.get(
    `${V1_PREFIX}/health`,
    {
      onRequest,
      schema: {
        tags,
        summary: "Health of each account and destination, with each cause and its fix",
        response: { 200: syncHealth, ...errors },
      },
    },
    async (req) => ctx.health.health(me(req)),
  );

  r.post(
    `${V1_PREFIX}/sync`,
    {
      onRequest,
      schema: {
        tags,
        summary: "Start a backup sync (all accounts, or one)",
        description:
          "Idempotent with an `Idempotency-Key` header: a repeat within 24 hours answers the " +
          "first result. A sync already running for an account is answered, not started again.",
        headers: v1StartSyncHeaders,
        body: v1StartSyncRequest,
        response: {
          202: startSyncResponse,
          ...errors,
          400: errorResponse.describe("Instagram or Google Drive is not connected"),
          404: errorResponse.describe("Account not found"),
        },
      },
    },
    async (req, reply) => {
      const userId = me(req);
      const body = req.body ?? { account_id: undefined };
      const result = await apiKeys.idempotent(
        userId,
        req.headers["idempotency-key"],
        { route: "sync", account_id: body.account_id ?? null },
        () => runs.start(userId, body.account_id),
      );
      return reply.code(202).send(result);
    },
  );

  r.post(
    `${V1_PREFIX}/backups/:post_id/retry`,
    {
      onRequest,
      schema: {
        tags,
        summary: "Retry a failed backup",
        params: v1PostIdParams,
        response: {
          200: retryBackupResponse,
          ...errors,
          404: errorResponse.describe("Backup not found"),
          409: errorResponse.describe("Already backed up, or running right now"),
        },
      },
    },
    async (req) => {
      const id = uuid.safeParse(req.params.post_id);
      if (!id.success) throw new AppError("not_found", syncMessages.backupNotFound);
      return ctx.backups.retry(me(req), id.data);
    },
  );
}
