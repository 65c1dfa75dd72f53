import type { StripeObject } from "../../state.ts";
import { randomId } from "../../util.ts";
import { addPeriod, newId, priceById, publicObject } from "./objects.ts";
import { StripeEvents } from "./webhooks.ts";

/** The sandbox's Stripe account: customers, subscriptions and their invoices, on the sandbox clock. */
export class StripeSim extends StripeEvents {
  createCustomer(
    email: string | undefined,
    name?: string,
    metadata: Record<string, string> = {},
  ): StripeObject {
    const customer: StripeObject = {
      id: newId("cus"),
      object: "customer",
      address: null,
      balance: 0,
      created: this.ctx.clock.nowSeconds(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: null,
      email: email ?? null,
      invoice_prefix: randomId(6).toUpperCase().replace(/[-_]/g, "A"),
      invoice_settings: {
        custom_fields: null,
        default_payment_method: null,
        footer: null,
        rendering_options: null,
      },
      livemode: false,
      metadata,
      name: name ?? null,
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: "none",
    };
    this.s.customers[customer.id] = customer;
    this.emit("customer.created", customer);
    return customer;
  }

  private invoice(
    sub: StripeObject,
    price: StripeObject,
    reason: string,
    paid: boolean,
  ): StripeObject {
    const item = (sub.items as { data: Record<string, unknown>[] }).data[0]!;
    const amount = price.unit_amount as number;
    const invoice: StripeObject = {
      id: newId("in"),
      object: "invoice",
      amount_due: amount,
      amount_paid: paid ? amount : 0,
      amount_remaining: paid ? 0 : amount,
      attempt_count: 1,
      attempted: true,
      billing_reason: reason,
      collection_method: "charge_automatically",
      created: this.ctx.clock.nowSeconds(),
      currency: "usd",
      customer: sub.customer,
      customer_email: (this.s.customers[sub.customer as string]?.email as string | null) ?? null,
      hosted_invoice_url: null,
      lines: {
        object: "list",
        data: [
          {
            id: newId("il"),
            object: "line_item",
            amount,
            currency: "usd",
            description: `1 × ${price.nickname as string}`,
            period: { start: item.current_period_start, end: item.current_period_end },
            pricing: {
              price_details: { price: price.id, product: price.product },
              type: "price_details",
            },
            quantity: 1,
          },
        ],
        has_more: false,
        url: "/v1/invoices/lines",
      },
      livemode: false,
      parent: {
        quote_details: null,
        subscription_details: { metadata: sub.metadata, subscription: sub.id },
        type: "subscription_details",
      },
      period_end: item.current_period_end,
      period_start: item.current_period_start,
      status: paid ? "paid" : "open",
      status_transitions: { paid_at: paid ? this.ctx.clock.nowSeconds() : null },
      subtotal: amount,
      total: amount,
    };
    this.s.invoices[invoice.id] = invoice;
    sub.latest_invoice = invoice.id;
    return invoice;
  }

  createSubscription(
    customerId: string,
    price: StripeObject,
    metadata: Record<string, string>,
  ): StripeObject {
    const now = this.ctx.clock.nowSeconds();
    const id = newId("sub");
    const sub: StripeObject = {
      id,
      object: "subscription",
      billing_cycle_anchor: now,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      collection_method: "charge_automatically",
      created: now,
      currency: "usd",
      customer: customerId,
      ended_at: null,
      items: {
        object: "list",
        data: [
          {
            id: newId("si"),
            object: "subscription_item",
            created: now,
            current_period_end: addPeriod(now, price),
            current_period_start: now,
            metadata: {},
            price: structuredClone(price),
            quantity: 1,
            subscription: id,
          },
        ],
        has_more: false,
        total_count: 1,
        url: `/v1/subscription_items?subscription=${id}`,
      },
      latest_invoice: null,
      livemode: false,
      metadata,
      start_date: now,
      status: "active",
      cancellation_details: { comment: null, feedback: null, reason: null },
      trial_end: null,
      trial_start: null,
    };
    this.s.subscriptions[id] = sub;
    const invoice = this.invoice(sub, price, "subscription_create", true);
    this.emit("customer.subscription.created", sub);
    this.emit("invoice.paid", invoice);
    return sub;
  }

  completeCheckout(session: StripeObject): void {
    let customerId = session.customer as string | null;
    if (!customerId)
      customerId = this.createCustomer(session.customer_email as string | undefined).id;
    const customer = this.s.customers[customerId]!;
    const price = priceById(session.__price as string)!;
    const sub = this.createSubscription(
      customerId,
      price,
      (session.subscription_data_metadata as Record<string, string>) ?? {},
    );
    Object.assign(session, {
      status: "complete",
      payment_status: "paid",
      customer: customerId,
      subscription: sub.id,
      invoice: sub.latest_invoice,
      customer_details: {
        email: customer.email,
        name: customer.name,
        address: null,
        phone: null,
        tax_exempt: "none",
        tax_ids: [],
      },
    });
    this.emit("checkout.session.completed", publicObject(session));
    this.ctx.changed();
  }

  item(sub: StripeObject): Record<string, unknown> {
    return (sub.items as { data: Record<string, unknown>[] }).data[0]!;
  }

  updateSubscription(
    sub: StripeObject,
    changes: {
      price?: StripeObject;
      cancelAtPeriodEnd?: boolean;
      metadata?: Record<string, string>;
    },
  ): void {
    const previous: Record<string, unknown> = {};
    const item = this.item(sub);
    if (changes.price && (item.price as StripeObject).id !== changes.price.id) {
      previous.items = structuredClone(sub.items);
      const now = this.ctx.clock.nowSeconds();
      item.price = structuredClone(changes.price);
      item.current_period_start = now;
      item.current_period_end = addPeriod(now, changes.price);
      const invoice = this.invoice(sub, changes.price, "subscription_update", true);
      this.emit("invoice.paid", invoice);
    }
    if (
      changes.cancelAtPeriodEnd !== undefined &&
      changes.cancelAtPeriodEnd !== sub.cancel_at_period_end
    ) {
      previous.cancel_at_period_end = sub.cancel_at_period_end;
      previous.cancel_at = sub.cancel_at;
      previous.canceled_at = sub.canceled_at;
      sub.cancel_at_period_end = changes.cancelAtPeriodEnd;
      sub.cancel_at = changes.cancelAtPeriodEnd ? item.current_period_end : null;
      sub.canceled_at = changes.cancelAtPeriodEnd ? this.ctx.clock.nowSeconds() : null;
    }
    if (changes.metadata) {
      previous.metadata = sub.metadata;
      sub.metadata = { ...(sub.metadata as Record<string, string>), ...changes.metadata };
    }
    if (Object.keys(previous).length) this.emit("customer.subscription.updated", sub, previous);
    this.ctx.changed();
  }

  cancelNow(
    sub: StripeObject,
    opts: {
      prorate?: boolean;
      invoiceNow?: boolean;
      comment?: string | null;
      feedback?: string | null;
    } = {},
  ): void {
    if (sub.status === "canceled") return;
    const now = this.ctx.clock.nowSeconds();
    Object.assign(sub, {
      status: "canceled",
      canceled_at: sub.canceled_at ?? now,
      ended_at: now,
      cancellation_details: {
        comment: opts.comment ?? null,
        feedback: opts.feedback ?? null,
        reason: "cancellation_requested",
      },
    });
    if (opts.prorate) this.creditUnusedTime(sub, now, opts.invoiceNow === true);
    this.emit("customer.subscription.deleted", sub);
    this.ctx.changed();
  }

  /**
   * Proration of a cancellation, as Stripe does it: the unused part of the paid period becomes
   * a negative proration line. With `invoice_now` a final invoice carries it at once and its
   * negative total goes to the customer's credit balance (Stripe refunds nothing by itself);
   * without, the line waits as a pending credit for the customer's next invoice.
   */
  private creditUnusedTime(sub: StripeObject, now: number, invoiceNow: boolean): void {
    const item = this.item(sub);
    const price = item.price as StripeObject;
    const start = item.current_period_start as number;
    const end = item.current_period_end as number;
    if (end <= now || end <= start) return;
    const credit = -Math.round(((price.unit_amount as number) * (end - now)) / (end - start));
    if (credit === 0) return;
    const customer = this.s.customers[sub.customer as string];
    if (!invoiceNow) {
      if (customer)
        customer.__pending_credit = ((customer.__pending_credit as number) ?? 0) + credit;
      return;
    }
    const invoice = this.invoice(sub, price, "subscription_cycle", true);
    const line = (invoice.lines as { data: Record<string, unknown>[] }).data[0]!;
    Object.assign(line, {
      amount: credit,
      description: `Unused time on ${price.nickname as string} after ${new Date(now * 1000).toUTCString()}`,
      period: { start: now, end },
      parent: {
        subscription_item_details: { proration: true, subscription: sub.id },
        type: "subscription_item_details",
      },
    });
    Object.assign(invoice, {
      amount_due: 0,
      amount_paid: 0,
      amount_remaining: 0,
      ending_balance: credit,
      starting_balance: 0,
      subtotal: credit,
      total: credit,
      period_start: now,
      period_end: now,
    });
    if (customer) {
      const previous = { balance: customer.balance };
      customer.balance = ((customer.balance as number) ?? 0) + credit;
      this.emit("customer.updated", customer, previous);
    }
    this.emit("invoice.paid", invoice);
  }

  failPayment(sub: StripeObject): StripeObject {
    const price = this.item(sub).price as StripeObject;
    const invoice = this.invoice(sub, price, "subscription_cycle", false);
    const previous = { status: sub.status };
    sub.status = "past_due";
    this.emit("invoice.payment_failed", invoice);
    this.emit("customer.subscription.updated", sub, previous);
    this.ctx.changed();
    return invoice;
  }

  /** Renews or ends subscriptions whose period passed on the sandbox clock. */
  tick(): void {
    const now = this.ctx.clock.nowSeconds();
    for (const session of Object.values(this.s.checkoutSessions)) {
      if (session.status === "open" && (session.expires_at as number) <= now) {
        session.status = "expired";
        this.emit("checkout.session.expired", publicObject(session));
      }
    }
    for (const sub of Object.values(this.s.subscriptions)) {
      if (sub.status !== "active" && sub.status !== "past_due") continue;
      const item = this.item(sub);
      let guard = 0;
      while (
        (item.current_period_end as number) <= now &&
        sub.status !== "canceled" &&
        guard++ < 50
      ) {
        if (sub.cancel_at_period_end) {
          Object.assign(sub, { status: "canceled", ended_at: item.current_period_end });
          this.emit("customer.subscription.deleted", sub);
          break;
        }
        const previous = {
          items: structuredClone(sub.items),
        };
        const price = item.price as StripeObject;
        item.current_period_start = item.current_period_end;
        item.current_period_end = addPeriod(item.current_period_end as number, price);
        const invoice = this.invoice(sub, price, "subscription_cycle", true);
        if (sub.status === "past_due") sub.status = "active";
        this.emit("invoice.paid", invoice);
        this.emit("customer.subscription.updated", sub, previous);
      }
    }
    this.ctx.changed();
  }
}
