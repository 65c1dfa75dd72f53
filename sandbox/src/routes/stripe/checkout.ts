import type { StripeObject } from "../../state.ts";
import { randomId } from "../../util.ts";
import {
  list,
  meta,
  type Nested,
  newId,
  priceById,
  publicObject,
  StripeError,
  str,
} from "./objects.ts";
import type { StripeRest } from "./rest.ts";
import type { StripeSim } from "./sim.ts";

/** Checkout Sessions and billing portal sessions (the pages they link to are in hosted.ts). */
export function registerCheckout(
  sim: StripeSim,
  { route, missing, noSuch, customer, listOf }: StripeRest,
): void {
  route("POST", "/v1/checkout/sessions", "stripe.checkout.sessions.create", (_req, p, base) => {
    const mode = str(p.mode);
    if (!mode) throw missing("mode");
    if (mode !== "subscription") {
      throw new StripeError(
        400,
        "invalid_request_error",
        "The sandbox supports mode=subscription only.",
        { param: "mode" },
      );
    }
    const items = list(p.line_items);
    if (!items.length) throw missing("line_items");
    const priceId = str(items[0]!.price);
    if (!priceId) throw missing("line_items[0][price]");
    const price = priceById(priceId);
    if (!price) throw noSuch("price", priceId, "line_items[0][price]");
    const successUrl = str(p.success_url);
    if (!successUrl) throw missing("success_url");
    const customerId = str(p.customer);
    if (customerId) customer(customerId, "customer");
    if (customerId && str(p.customer_email)) {
      throw new StripeError(
        400,
        "invalid_request_error",
        "You may only specify one of these parameters: customer, customer_email.",
        { param: "customer_email" },
      );
    }
    const id = `cs_test_${randomId(42).replace(/[-_]/g, "a")}`;
    const now = sim.ctx.clock.nowSeconds();
    const subData =
      p.subscription_data && typeof p.subscription_data === "object" ? p.subscription_data : {};
    const session: StripeObject = {
      id,
      object: "checkout.session",
      allow_promotion_codes: null,
      amount_subtotal: price.unit_amount,
      amount_total: price.unit_amount,
      cancel_url: str(p.cancel_url) ?? null,
      client_reference_id: str(p.client_reference_id) ?? null,
      created: now,
      currency: "usd",
      customer: customerId ?? null,
      customer_creation: customerId ? null : "always",
      customer_details: null,
      customer_email: str(p.customer_email) ?? null,
      expires_at: now + 86_400,
      invoice: null,
      livemode: false,
      locale: null,
      metadata: meta(p.metadata),
      mode: "subscription",
      payment_status: "unpaid",
      status: "open",
      subscription: null,
      success_url: successUrl,
      ui_mode: "hosted",
      url: `${base}/checkout.stripe.com/c/pay/${id}`,
      __price: priceId,
      subscription_data_metadata: meta((subData as Nested).metadata),
    };
    sim.s.checkoutSessions[id] = session;
    sim.ctx.changed();
    return session;
  });
  // As at Stripe: newest first, filtered by customer, status (open, complete, expired) or
  // subscription.
  route("GET", "/v1/checkout/sessions", "stripe.checkout.sessions.list", (_req, p) => {
    const customerId = str(p.customer);
    const status = str(p.status);
    if (status && !["open", "complete", "expired"].includes(status)) {
      throw new StripeError(
        400,
        "invalid_request_error",
        `Invalid status: must be one of open, complete, or expired`,
        { param: "status" },
      );
    }
    const subscription = str(p.subscription);
    const all = Object.values(sim.s.checkoutSessions)
      .filter(
        (cs) =>
          (!customerId || cs.customer === customerId) &&
          (!status || cs.status === status) &&
          (!subscription || cs.subscription === subscription),
      )
      .map(publicObject);
    return listOf(all.reverse(), "/v1/checkout/sessions", p);
  });
  route("GET", "/v1/checkout/sessions/:id", "stripe.checkout.sessions.retrieve", (req) => {
    const id = (req.params as { id: string }).id;
    const session = sim.s.checkoutSessions[id];
    if (!session) throw noSuch("checkout.session", id, "session", 404);
    return session;
  });
  route("POST", "/v1/checkout/sessions/:id/expire", "stripe.checkout.sessions.expire", (req) => {
    const id = (req.params as { id: string }).id;
    const session = sim.s.checkoutSessions[id];
    if (!session) throw noSuch("checkout.session", id, "session", 404);
    if (session.status !== "open") {
      throw new StripeError(
        400,
        "invalid_request_error",
        `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status as string}".`,
      );
    }
    session.status = "expired";
    sim.emit("checkout.session.expired", publicObject(session));
    return session;
  });

  route(
    "POST",
    "/v1/billing_portal/sessions",
    "stripe.billing_portal.sessions.create",
    (_req, p, base) => {
      const customerId = str(p.customer);
      if (!customerId) throw missing("customer");
      customer(customerId, "customer");
      const flow = portalFlow(sim, p.flow_data, customerId, { missing, noSuch });
      const id = newId("bps");
      const session: StripeObject = {
        id,
        object: "billing_portal.session",
        configuration: "bpc_sandbox_default",
        created: sim.ctx.clock.nowSeconds(),
        customer: customerId,
        flow,
        livemode: false,
        locale: null,
        on_behalf_of: null,
        return_url: str(p.return_url) ?? null,
        url: `${base}/billing.stripe.com/p/session/${id}`,
      };
      sim.s.portalSessions[id] = session;
      sim.ctx.changed();
      return session;
    },
  );
}

/**
 * `flow_data` of a portal session, as Stripe shapes it in the session's `flow`. The sandbox
 * supports `subscription_update_confirm` (the portal opens on the confirmation of one price
 * change) and `after_completion` `redirect` or `portal_homepage`.
 */
function portalFlow(
  sim: StripeSim,
  data: Nested | string | undefined,
  customerId: string,
  { missing, noSuch }: Pick<StripeRest, "missing" | "noSuch">,
): Record<string, unknown> | null {
  if (!data || typeof data === "string") return null;
  const type = str(data.type);
  if (type !== "subscription_update_confirm") {
    throw new StripeError(
      400,
      "invalid_request_error",
      "The sandbox supports flow_data[type]=subscription_update_confirm only.",
      { param: "flow_data[type]" },
    );
  }
  const confirm = data.subscription_update_confirm;
  const subId = typeof confirm === "object" ? str(confirm.subscription) : undefined;
  if (!subId) throw missing("flow_data[subscription_update_confirm][subscription]");
  const sub = sim.s.subscriptions[subId];
  if (!sub || sub.customer !== customerId || sub.status === "canceled") {
    throw noSuch("subscription", subId, "flow_data[subscription_update_confirm][subscription]");
  }
  const items = typeof confirm === "object" ? list(confirm.items) : [];
  const item = items[0];
  if (!item) throw missing("flow_data[subscription_update_confirm][items]");
  const priceId = str(item.price);
  if (!priceById(priceId)) {
    throw noSuch("price", priceId ?? "", "flow_data[subscription_update_confirm][items][0][price]");
  }
  const itemId = str(item.id);
  if (itemId !== sim.item(sub).id) {
    throw noSuch(
      "subscription_item",
      itemId ?? "",
      "flow_data[subscription_update_confirm][items][0][id]",
    );
  }
  const after = typeof data.after_completion === "object" ? data.after_completion : {};
  const redirect = typeof after.redirect === "object" ? str(after.redirect.return_url) : undefined;
  const afterType = str(after.type) ?? "portal_homepage";
  if (afterType === "redirect" && !redirect) {
    throw missing("flow_data[after_completion][redirect][return_url]");
  }
  return {
    type,
    after_completion: {
      type: afterType,
      hosted_confirmation: null,
      redirect: afterType === "redirect" ? { return_url: redirect } : null,
    },
    subscription_cancel: null,
    subscription_update: null,
    subscription_update_confirm: {
      discounts: [],
      items: [{ id: itemId, price: priceId, quantity: Number(str(item.quantity) ?? 1) }],
      subscription: subId,
    },
  };
}
