import {
  disconnectResponse,
  instagramAccount,
  instagramAccountsResponse,
  keepAccountResponse,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import { AppError } from "../lib/errors.ts";
import type { AccountsService } from "./accounts.service.ts";

const params = z.object({ id: z.string() });
const uuid = z.uuid();
const tags = ["accounts"];

/** The account id of the path; anything that is not an id names no account. */
function accountId(p: { id: string }): string {
  const parsed = uuid.safeParse(p.id);
  if (!parsed.success) throw new AppError("not_found", "Instagram account not found");
  return parsed.data;
}

/** What these routes use of the application. */
export interface AccountsRouteDeps {
  accounts: AccountsService;
  guards: AuthGuards;
}

export function registerAccountRoutes(app: FastifyInstance, ctx: AccountsRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { accounts, guards } = ctx;
  const onRequest = guards.requireUser;

  r.get(
    "/api/accounts/instagram-accounts",
    { onRequest, schema: { tags, response: { 200: instagramAccountsResponse } } },
    async (req) => accounts.list(principalOf(req).user),
  );

  r.delete(
    "/api/accounts/instagram-accounts/:id",
    { onRequest, schema: { tags, params, response: { 200: disconnectResponse } } },
    async (req) => accounts.remove(principalOf(req).user.id, accountId(req.params)),
  );

  // After a downgrade: the account the user keeps syncing (the others beyond the limit pause).
  r.put(
    "/api/accounts/instagram-accounts/:id/keep",
    { onRequest, schema: { tags, params, response: { 200: keepAccountResponse } } },
    async (req) => accounts.keep(principalOf(req).user, accountId(req.params)),
  );

  r.put(
    "/api/accounts/instagram-accounts/:id/refresh-profile",
    { onRequest, schema: { tags, params, response: { 200: instagramAccount } } },
    async (req) => accounts.refreshProfile(principalOf(req).user.id, accountId(req.params)),
  );
}
