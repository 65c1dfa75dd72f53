import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Ctx } from "../../context.ts";
import type { StripeSim } from "../stripe/index.ts";
import { CONTROL as c, handle } from "./handle.ts";

/** The Stripe webhook target and retries, its events, and payments that fail or complete. */
export function registerStripeControl(app: FastifyInstance, ctx: Ctx, stripe: StripeSim): void {
  app.post(
    `${c}/stripe/webhook`,
    handle(
      z.object({
        url: z.string().url().nullable().optional(),
        retry_base_ms: z.number().int().min(1).optional(),
        max_attempts: z.number().int().min(1).optional(),
      }),
      (b) => {
        if (b.url !== undefined) ctx.state.stripe.webhookUrl = b.url ?? undefined;
        if (b.retry_base_ms) ctx.webhookRetryBaseMs = b.retry_base_ms;
        if (b.max_attempts) ctx.webhookMaxAttempts = b.max_attempts;
        ctx.changed();
        return {
          url: stripe.webhookUrl() ?? null,
          retry_base_ms: ctx.webhookRetryBaseMs,
          max_attempts: ctx.webhookMaxAttempts,
        };
      },
    ),
  );
  app.get(`${c}/stripe/events`, async () => ({
    events: ctx.state.stripe.events.map((e) => ({
      id: e.event.id,
      type: e.event.type,
      delivered: e.delivered,
      deliveries: e.deliveries,
      object_id: (e.event.data as { object: { id: string } }).object.id,
    })),
  }));
  app.post(
    `${c}/stripe/payment_failed`,
    handle(z.object({ subscription: z.string() }), (b, reply) => {
      const sub = ctx.state.stripe.subscriptions[b.subscription];
      if (!sub) return reply.code(404).send({ error: "no such subscription" });
      const invoice = stripe.failPayment(sub);
      return { invoice: invoice.id, status: sub.status };
    }),
  );
  app.post(`${c}/stripe/checkout/:id/complete`, async (req, reply) => {
    const session = ctx.state.stripe.checkoutSessions[(req.params as { id: string }).id];
    if (session?.status !== "open")
      return reply.code(404).send({ error: "no open checkout session" });
    stripe.completeCheckout(session);
    return { subscription: session.subscription, customer: session.customer };
  });
}
