import { checkoutRequest } from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { principalOf } from "../http/auth.plugin.ts";
import { parseOr422 } from "../lib/errors.ts";

export async function registerBillingRoutes(app: FastifyInstance, ctx: AppContext) {
  const { billing, billingWebhooks, guards } = ctx;
  const user = { preHandler: guards.requireUser };

  app.get("/api/subscriptions/plans", async () => ({ plans: billing.plans() }));

  app.get("/api/subscriptions/current", user, async (req) =>
    billing.current(principalOf(req).user),
  );

  app.post("/api/subscriptions/checkout", user, async (req) =>
    billing.checkout(principalOf(req).user, parseOr422(checkoutRequest, req.body)),
  );

  app.post("/api/subscriptions/portal", user, async (req) => billing.portal(principalOf(req).user));

  // The signature covers the exact bytes Stripe sent: this route keeps the body raw.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => {
      done(null, body);
    });
    scope.post("/api/webhooks/stripe", async (req) => {
      const signature = req.headers["stripe-signature"];
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      return billingWebhooks.handle(raw, typeof signature === "string" ? signature : undefined);
    });
  });
}
