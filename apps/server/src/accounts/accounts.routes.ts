import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.ts";
import { principalOf } from "../http/auth.plugin.ts";
import { HttpError } from "../lib/errors.ts";

const idParams = z.object({ id: z.uuid() });

/** The account id of the path; anything that is not an id names no account. */
function accountId(params: unknown): string {
  const parsed = idParams.safeParse(params);
  if (!parsed.success) throw new HttpError(404, "Instagram account not found");
  return parsed.data.id;
}

export function registerAccountRoutes(app: FastifyInstance, ctx: AppContext) {
  const { accounts, guards } = ctx;
  const user = { preHandler: guards.requireUser };

  app.get("/api/accounts/instagram-accounts", user, async (req) =>
    accounts.list(principalOf(req).user),
  );

  app.delete("/api/accounts/instagram-accounts/:id", user, async (req) => {
    return accounts.remove(principalOf(req).user.id, accountId(req.params));
  });

  // After a downgrade: the account the user keeps syncing (the others beyond the limit pause).
  app.put("/api/accounts/instagram-accounts/:id/keep", user, async (req) => {
    return accounts.keep(principalOf(req).user, accountId(req.params));
  });

  app.put("/api/accounts/instagram-accounts/:id/refresh-profile", user, async (req) => {
    return accounts.refreshProfile(principalOf(req).user.id, accountId(req.params));
  });
}
