import type { StripeObject } from "../../state.ts";
import { list, meta, priceById, str } from "./objects.ts";
import type { StripeRest } from "./rest.ts";
import type { StripeSim } from "./sim.ts";

/** Subscriptions, invoices and events. */
export function registerSubscriptions(
  sim: StripeSim,
  { route, noSuch, listOf, subscription }: StripeRest,
): void {
  route("GET", "/v1/subscriptions", "stripe.subscriptions.list", (_req, p) => {
    const cust = str(p.customer);
    const status = str(p.status);
    const all = Object.values(sim.s.subscriptions).filter(
      (sub) =>
        (!cust || sub.customer === cust) &&
        (status === "all" ? true : status ? sub.status === status : sub.status !== "canceled"),
    );
    return listOf(all.reverse(), "/v1/subscriptions", p);
  });
  route("GET", "/v1/subscriptions/:id", "stripe.subscriptions.retrieve", (req) =>
    subscription((req.params as { id: string }).id),
  );
  route("POST", "/v1/subscriptions/:id", "stripe.subscriptions.update", (req, p) => {
    const sub = subscription((req.params as { id: string }).id);
    const items = list(p.items);
    let price: StripeObject | undefined;
    if (items.length) {
      const priceId = str(items[0]!.price);
      price = priceById(priceId);
      if (!price) throw noSuch("price", priceId ?? "", "items[0][price]");
    }
    const cancel = str(p.cancel_at_period_end);
    sim.updateSubscription(sub, {
      price,
      cancelAtPeriodEnd: cancel === undefined ? undefined : cancel === "true",
      metadata: p.metadata ? meta(p.metadata) : undefined,
    });
    return sub;
  });
  // As at Stripe: `prorate` credits the unused time, `invoice_now` bills (here: credits) it on
  // a final invoice at once, `cancellation_details[comment|feedback]` say why.
  route("DELETE", "/v1/subscriptions/:id", "stripe.subscriptions.cancel", (req, p) => {
    const sub = subscription((req.params as { id: string }).id);
    const details = p.cancellation_details;
    const detail = (k: string) =>
      details && typeof details === "object" ? (str(details[k]) ?? null) : null;
    sim.cancelNow(sub, {
      prorate: str(p.prorate) === "true",
      invoiceNow: str(p.invoice_now) === "true",
      comment: detail("comment"),
      feedback: detail("feedback"),
    });
    return sub;
  });
  route("GET", "/v1/invoices/:id", "stripe.invoices.retrieve", (req) => {
    const id = (req.params as { id: string }).id;
    const inv = sim.s.invoices[id];
    if (!inv) throw noSuch("invoice", id, "id", 404);
    return inv;
  });
  route("GET", "/v1/invoices", "stripe.invoices.list", (_req, p) => {
    const cust = str(p.customer);
    const sub = str(p.subscription);
    const all = Object.values(sim.s.invoices).filter(
      (i) =>
        (!cust || i.customer === cust) &&
        (!sub ||
          (i.parent as { subscription_details: { subscription: string } }).subscription_details
            .subscription === sub),
    );
    return listOf(all.reverse(), "/v1/invoices", p);
  });
  route("GET", "/v1/events/:id", "stripe.events.retrieve", (req) => {
    const id = (req.params as { id: string }).id;
    const rec = sim.s.events.find((e) => e.event.id === id);
    if (!rec) throw noSuch("event", id, "id", 404);
    return rec.event;
  });
  route("GET", "/v1/events", "stripe.events.list", (_req, p) => {
    const type = str(p.type);
    return listOf(
      sim.s.events
        .map((e) => e.event)
        .filter((e) => !type || e.type === type)
        .reverse(),
      "/v1/events",
      p,
    );
  });
}
