import {
  checkoutRequest,
  checkoutResponse,
  plansResponse,
  portalResponse,
  subscription,
  webhookReceipt,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import { BODY_LIMITS } from "../http/body-limits.ts";
import { PUBLIC } from "../http/openapi.ts";
import type { BillingService } from "./billing.service.ts";
import type { BillingWebhookService } from "./billing-webhook.service.ts";

const tags = ["billing"];

/** What these routes use of the application. */
export interface BillingRouteDeps {
  billing: BillingService;
  billingWebhooks: BillingWebhookService;
  guards: AuthGuards;
}

export async function registerBillingRoutes(app: FastifyInstance, ctx: BillingRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { billing, billingWebhooks, guards } = ctx;
  const onRequest = guards.requireUser;

  r.get(
    "/api/subscriptions/plans",
    { schema: { tags, security: PUBLIC, response: { 200: plansResponse } } },
    async () => ({ plans: billing.plans() }),
  );

  r.get(
    "/api/subscriptions/current",
    { onRequest, schema: { tags, response: { 200: subscription } } },
    async (req) => billing.current(principalOf(req).user),
  );

  r.post(
    "/api/subscriptions/checkout",
    { onRequest, schema: { tags, body: checkoutRequest, response: { 200: checkoutResponse } } },
    async (req) => billing.checkout(principalOf(req).user, req.body),
  );

  r.post(
    "/api/subscriptions/portal",
    { onRequest, schema: { tags, response: { 200: portalResponse } } },
    async (req) => billing.portal(principalOf(req).user),
  );

  // The signature covers the exact bytes Stripe sent: this route keeps the body raw.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => {
      done(null, body);
    });
    scope.withTypeProvider<ZodTypeProvider>().post(
      "/api/webhooks/stripe",
      {
        bodyLimit: BODY_LIMITS.stripeWebhook,
        schema: {
          tags,
          security: PUBLIC,
          description: "Stripe events, verified by their Stripe-Signature header.",
          response: { 200: webhookReceipt },
        },
      },
      async (req) => {
        const signature = req.headers["stripe-signature"];
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        return billingWebhooks.handle(raw, typeof signature === "string" ? signature : undefined);
      },
    );
  });
}
