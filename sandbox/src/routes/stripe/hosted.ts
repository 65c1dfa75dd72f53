import type { FastifyInstance, FastifyReply } from "fastify";
import { checkoutPage, portalPage } from "../../stripe-pages.ts";
import { form } from "../../util.ts";
import { PRICES, priceById } from "./objects.ts";
import type { StripeSim } from "./sim.ts";

/** A portal session's `flow` (Stripe's shape; checkout.ts builds it). */
interface FlowObject {
  type: string;
  after_completion: { type: string; redirect: { return_url: string } | null };
  subscription_update_confirm: {
    subscription: string;
    items: { id: string; price: string; quantity: number }[];
  } | null;
}

/** The page's "no such session" version, with `status`. */
function gone(
  reply: FastifyReply,
  status: number,
  page: (opts: { missing: true }) => string,
): FastifyReply {
  return reply
    .code(status)
    .type("text/html")
    .send(page({ missing: true }));
}

/** The hosted Checkout and billing portal pages a person clicks through. */
export function registerHostedPages(app: FastifyInstance, sim: StripeSim): void {
  app.get("/checkout.stripe.com/c/pay/:id", async (req, reply) => {
    if (!(await sim.ctx.enter(req, reply, "stripe.checkout.page"))) return reply;
    const session = sim.s.checkoutSessions[(req.params as { id: string }).id];
    if (!session) return gone(reply, 404, checkoutPage);
    const price = priceById(session.__price as string)!;
    const email =
      (session.customer_email as string | null) ??
      (session.customer
        ? (sim.s.customers[session.customer as string]?.email as string | null)
        : null);
    return reply.type("text/html").send(
      checkoutPage({
        session,
        price,
        email: email ?? "",
        error: (req.query as { error?: string }).error,
      }),
    );
  });
  app.post("/checkout.stripe.com/c/pay/:id", async (req, reply) => {
    if (!(await sim.ctx.enter(req, reply, "stripe.checkout.submit"))) return reply;
    const id = (req.params as { id: string }).id;
    const session = sim.s.checkoutSessions[id];
    if (!session) return gone(reply, 404, checkoutPage);
    const f = form(req);
    if (session.status !== "open" || (session.expires_at as number) <= sim.ctx.clock.nowSeconds()) {
      return gone(reply, 410, checkoutPage);
    }
    if (f.decision === "back") {
      return reply.redirect(
        (session.cancel_url as string | null) ?? (session.success_url as string),
      );
    }
    if ((f.card ?? "").replace(/\s/g, "") === "4000000000000002") {
      return reply.redirect(
        `/checkout.stripe.com/c/pay/${id}?error=${encodeURIComponent("Your card was declined.")}`,
      );
    }
    if (!session.customer && !session.customer_email && f.email) session.customer_email = f.email;
    sim.completeCheckout(session);
    return reply.redirect((session.success_url as string).replace("{CHECKOUT_SESSION_ID}", id));
  });
  app.get("/billing.stripe.com/p/session/:id", async (req, reply) => {
    if (!(await sim.ctx.enter(req, reply, "stripe.portal.page"))) return reply;
    const session = sim.s.portalSessions[(req.params as { id: string }).id];
    if (!session) return gone(reply, 404, portalPage);
    const cust = sim.s.customers[session.customer as string]!;
    const subs = Object.values(sim.s.subscriptions).filter(
      (s) => s.customer === cust.id && s.status !== "canceled",
    );
    const flow = session.flow as FlowObject | null;
    const confirm =
      flow?.subscription_update_confirm && !session.__flow_done
        ? {
            subscription: flow.subscription_update_confirm.subscription,
            price: priceById(flow.subscription_update_confirm.items[0]?.price),
          }
        : undefined;
    return reply.type("text/html").send(
      portalPage({
        session,
        customer: cust,
        subscriptions: subs,
        prices: PRICES,
        notice: (req.query as { notice?: string }).notice,
        ...(confirm?.price
          ? { confirm: { subscription: confirm.subscription, price: confirm.price } }
          : {}),
      }),
    );
  });
  app.post("/billing.stripe.com/p/session/:id", async (req, reply) => {
    if (!(await sim.ctx.enter(req, reply, "stripe.portal.submit"))) return reply;
    const id = (req.params as { id: string }).id;
    const session = sim.s.portalSessions[id];
    if (!session) return gone(reply, 404, portalPage);
    const f = form(req);
    const sub = sim.s.subscriptions[f.subscription ?? ""];
    if (!sub || sub.customer !== session.customer)
      return reply.redirect(`/billing.stripe.com/p/session/${id}`);
    let notice = "";
    const flow = session.flow as FlowObject | null;
    if (f.action === "confirm_flow" && flow?.subscription_update_confirm?.subscription === sub.id) {
      const price = priceById(flow.subscription_update_confirm.items[0]?.price);
      if (price) sim.updateSubscription(sub, { price });
      session.__flow_done = true;
      const back = flow.after_completion.redirect?.return_url;
      if (flow.after_completion.type === "redirect" && back) return reply.redirect(back);
      notice = `Switched to ${(price?.nickname as string) ?? "the new plan"}.`;
    } else if (f.action === "switch") {
      const price = priceById(f.price);
      if (price) {
        sim.updateSubscription(sub, { price });
        notice = `Switched to ${price.nickname as string}.`;
      }
    } else if (f.action === "cancel") {
      sim.updateSubscription(sub, { cancelAtPeriodEnd: true });
      notice = "Your plan will be canceled at the end of the billing period.";
    } else if (f.action === "renew") {
      sim.updateSubscription(sub, { cancelAtPeriodEnd: false });
      notice = "Your plan was renewed.";
    } else if (f.action === "cancel_now") {
      sim.cancelNow(sub);
      notice = "Your plan was canceled.";
    }
    return reply.redirect(
      `/billing.stripe.com/p/session/${id}?notice=${encodeURIComponent(notice)}`,
    );
  });
}
