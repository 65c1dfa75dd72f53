import { createHmac } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.ts";
import { sendStripeError } from "../context.ts";
import { SANDBOX_CREDENTIALS, SANDBOX_PRICE_AMOUNTS, SANDBOX_PRICES } from "../credentials.ts";
import type { StripeEventRecord, StripeObject } from "../state.ts";
import { checkoutPage, portalPage } from "../stripe-pages.ts";
import { form, randomId } from "../util.ts";

const API_VERSION = "2026-10-28.endive";
const S = SANDBOX_CREDENTIALS.stripe;

class StripeError extends Error {
  readonly status: number;
  readonly type: string;
  readonly extra: { param?: string; code?: string };
  constructor(
    status: number,
    type: string,
    message: string,
    extra: { param?: string; code?: string } = {},
  ) {
    super(message);
    this.status = status;
    this.type = type;
    this.extra = extra;
  }
}

type Nested = { [key: string]: Nested | string };

/** `a[b][0][c]=v` form keys → nested objects (arrays as index-keyed objects). */
export function nest(flat: Record<string, unknown>): Nested {
  const out: Nested = {};
  for (const [key, raw] of Object.entries(flat)) {
    const values = Array.isArray(raw) ? raw : [raw];
    values.forEach((value, n) => {
      const path = key.replace(/\]/g, "").split("[");
      let node = out;
      for (let i = 0; i < path.length; i++) {
        let k = path[i]!;
        if (k === "") k = String(n);
        if (i === path.length - 1) node[k] = String(value);
        else {
          const next = node[k];
          if (typeof next !== "object") node[k] = {};
          node = node[k] as Nested;
        }
      }
    });
  }
  return out;
}

function list(n: Nested | string | undefined): Nested[] {
  if (!n || typeof n === "string") return [];
  return Object.keys(n)
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => n[k])
    .filter((v): v is Nested => typeof v === "object");
}
function strings(n: Nested | string | undefined): string[] {
  if (n === undefined) return [];
  if (typeof n === "string") return [n];
  return Object.values(n).filter((v): v is string => typeof v === "string");
}
function str(n: Nested | string | undefined): string | undefined {
  return typeof n === "string" ? n : undefined;
}
function meta(n: Nested | string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (n && typeof n === "object")
    for (const [k, v] of Object.entries(n)) if (typeof v === "string" && v !== "") out[k] = v;
  return out;
}

export const PRODUCTS: StripeObject[] = (
  Object.keys(SANDBOX_PRICES) as (keyof typeof SANDBOX_PRICES)[]
).map((tier) => ({
  id: `prod_sandbox_${tier}`,
  object: "product",
  active: true,
  name: `Keepsake ${tier[0]!.toUpperCase()}${tier.slice(1)}`,
  description: null,
  metadata: { tier },
  livemode: false,
  created: 1767225600,
  type: "service",
}));

export const PRICES: StripeObject[] = (
  Object.keys(SANDBOX_PRICES) as (keyof typeof SANDBOX_PRICES)[]
).flatMap((tier) =>
  (["monthly", "annual"] as const).map((interval) => ({
    id: SANDBOX_PRICES[tier][interval],
    object: "price",
    active: true,
    billing_scheme: "per_unit",
    created: 1767225600,
    currency: "usd",
    livemode: false,
    lookup_key: `${tier}_${interval}`,
    metadata: { tier, interval },
    nickname: `${tier[0]!.toUpperCase()}${tier.slice(1)} ${interval}`,
    product: `prod_sandbox_${tier}`,
    recurring: {
      interval: interval === "monthly" ? "month" : "year",
      interval_count: 1,
      usage_type: "licensed",
    },
    tax_behavior: "unspecified",
    type: "recurring",
    unit_amount: SANDBOX_PRICE_AMOUNTS[tier][interval],
    unit_amount_decimal: String(SANDBOX_PRICE_AMOUNTS[tier][interval]),
  })),
);

export function priceById(id: string | undefined): StripeObject | undefined {
  return PRICES.find((p) => p.id === id);
}

function addPeriod(seconds: number, price: StripeObject): number {
  const d = new Date(seconds * 1000);
  if ((price.recurring as { interval: string }).interval === "year")
    d.setUTCFullYear(d.getUTCFullYear() + 1);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return Math.floor(d.getTime() / 1000);
}

function newId(prefix: string): string {
  return `${prefix}_${randomId(18).replace(/[-_]/g, "X")}`;
}

export class StripeSim {
  private readonly idempotency = new Map<string, { status: number; body: unknown }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly ctx: Ctx;
  constructor(ctx: Ctx) {
    this.ctx = ctx;
  }

  get s() {
    return this.ctx.state.stripe;
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  webhookUrl(): string | undefined {
    return this.s.webhookUrl ?? this.ctx.options.stripeWebhookUrl;
  }

  emit(type: string, object: StripeObject, previous?: Record<string, unknown>): StripeEventRecord {
    const event: StripeObject = {
      id: newId("evt"),
      object: "event",
      api_version: API_VERSION,
      created: this.ctx.clock.nowSeconds(),
      data: previous
        ? { object: structuredClone(object), previous_attributes: previous }
        : { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: this.webhookUrl() ? 1 : 0,
      request: { id: newId("req"), idempotency_key: null },
      type,
    };
    const record: StripeEventRecord = { event, deliveries: [], delivered: false };
    this.s.events.push(record);
    this.ctx.changed();
    void this.deliver(record);
    return record;
  }

  async deliver(record: StripeEventRecord): Promise<void> {
    const url = this.webhookUrl();
    if (!url || record.delivered) return;
    const payload = JSON.stringify(record.event, null, 2);
    const t = Math.floor(Date.now() / 1000);
    const sig = createHmac("sha256", S.webhookSecret).update(`${t}.${payload}`).digest("hex");
    let status: number | null = null;
    let error: string | undefined;
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          "stripe-signature": `t=${t},v1=${sig}`,
          "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    record.deliveries.push({ at: this.ctx.now(), status, error });
    if (status !== null && status >= 200 && status < 300) {
      record.delivered = true;
      record.event.pending_webhooks = 0;
    } else if (record.deliveries.length < this.ctx.webhookMaxAttempts) {
      const delay = this.ctx.webhookRetryBaseMs * 2 ** (record.deliveries.length - 1);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.deliver(record);
      }, delay);
      timer.unref();
      this.timers.add(timer);
    }
    this.ctx.changed();
  }

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

  cancelNow(sub: StripeObject): void {
    if (sub.status === "canceled") return;
    const now = this.ctx.clock.nowSeconds();
    Object.assign(sub, { status: "canceled", canceled_at: sub.canceled_at ?? now, ended_at: now });
    this.emit("customer.subscription.deleted", sub);
    this.ctx.changed();
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

  // ---------- REST ----------
  register(app: FastifyInstance): void {
    const route = (
      method: "GET" | "POST" | "DELETE",
      url: string,
      endpoint: string,
      fn: (req: FastifyRequest, p: Nested, base: string) => StripeObject | Record<string, unknown>,
    ) => {
      app.route({
        method,
        url,
        handler: async (req, reply) => {
          if (!(await this.ctx.enter(req, reply, endpoint))) return reply;
          reply
            .header("request-id", newId("req"))
            .header("stripe-version", (req.headers["stripe-version"] as string) ?? API_VERSION);
          const auth = req.headers.authorization ?? "";
          const key = auth.startsWith("Bearer ")
            ? auth.slice(7)
            : auth.startsWith("Basic ")
              ? Buffer.from(auth.slice(6), "base64").toString().split(":")[0]
              : undefined;
          if (!key) {
            return sendStripeError(
              reply,
              401,
              "invalid_request_error",
              "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
            );
          }
          if (key !== S.secretKey) {
            return sendStripeError(
              reply,
              401,
              "invalid_request_error",
              `Invalid API Key provided: ${key.slice(0, 8)}${"*".repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`,
            );
          }
          const idem =
            method === "POST" ? (req.headers["idempotency-key"] as string | undefined) : undefined;
          const cached = idem ? this.idempotency.get(`${url}|${idem}`) : undefined;
          if (cached)
            return reply
              .code(cached.status)
              .header("idempotent-replayed", "true")
              .send(cached.body);
          const p = nest({
            ...((req.query as Record<string, unknown>) ?? {}),
            ...form(req),
            ...rawArrays(req),
          });
          try {
            const result = fn(req, p, this.ctx.baseUrl(req));
            const body = expand(this.ctx, publicObject(result as StripeObject), strings(p.expand));
            if (idem) this.idempotency.set(`${url}|${idem}`, { status: 200, body });
            return reply.send(body);
          } catch (e) {
            if (e instanceof StripeError)
              return sendStripeError(reply, e.status, e.type, e.message, e.extra);
            throw e;
          }
        },
      });
    };
    const missing = (param: string) =>
      new StripeError(400, "invalid_request_error", `Missing required param: ${param}.`, {
        param,
        code: "parameter_missing",
      });
    const noSuch = (kind: string, id: string, param?: string, status = 400) =>
      new StripeError(status, "invalid_request_error", `No such ${kind}: '${id}'`, {
        param,
        code: "resource_missing",
      });
    const listOf = (items: StripeObject[], url: string, p: Nested) => {
      const limit = Math.min(100, Number(str(p.limit) ?? 10));
      let start = 0;
      const after = str(p.starting_after);
      if (after) start = items.findIndex((i) => i.id === after) + 1;
      const data = items.slice(start, start + limit);
      return { object: "list", data, has_more: start + limit < items.length, url };
    };
    const customer = (id: string | undefined, param?: string, status = 400) => {
      const c = id ? this.s.customers[id] : undefined;
      if (!c || c.deleted) throw noSuch("customer", id ?? "", param, status);
      return c;
    };
    const subscription = (id: string) => {
      const sub = this.s.subscriptions[id];
      if (!sub) throw noSuch("subscription", id, "id", 404);
      return sub;
    };

    route("POST", "/v1/customers", "stripe.customers.create", (_req, p) =>
      this.createCustomer(str(p.email), str(p.name), meta(p.metadata)),
    );
    route("GET", "/v1/customers", "stripe.customers.list", (_req, p) => {
      const email = str(p.email);
      const all = Object.values(this.s.customers).filter(
        (c) => !c.deleted && (!email || c.email === email),
      );
      return listOf(all.reverse(), "/v1/customers", p);
    });
    route("GET", "/v1/customers/:id", "stripe.customers.retrieve", (req) =>
      customer((req.params as { id: string }).id, "id", 404),
    );
    route("POST", "/v1/customers/:id", "stripe.customers.update", (req, p) => {
      const c = customer((req.params as { id: string }).id, "id", 404);
      if (str(p.email) !== undefined) c.email = str(p.email);
      if (str(p.name) !== undefined) c.name = str(p.name);
      if (p.metadata)
        c.metadata = { ...(c.metadata as Record<string, string>), ...meta(p.metadata) };
      this.emit("customer.updated", c);
      return c;
    });
    route("DELETE", "/v1/customers/:id", "stripe.customers.del", (req) => {
      const c = customer((req.params as { id: string }).id, "id", 404);
      // As at Stripe: deleting a customer cancels its subscriptions at once.
      for (const sub of Object.values(this.s.subscriptions)) {
        if (sub.customer === c.id) this.cancelNow(sub);
      }
      c.deleted = true;
      this.emit("customer.deleted", c);
      return { id: c.id, object: "customer", deleted: true };
    });
    route("GET", "/v1/prices", "stripe.prices.list", (_req, p) => {
      const keys = strings(p.lookup_keys);
      const product = str(p.product);
      return listOf(
        PRICES.filter(
          (x) =>
            (!keys.length || keys.includes(x.lookup_key as string)) &&
            (!product || x.product === product),
        ),
        "/v1/prices",
        p,
      );
    });
    route("GET", "/v1/prices/:id", "stripe.prices.retrieve", (req) => {
      const id = (req.params as { id: string }).id;
      const price = priceById(id);
      if (!price) throw noSuch("price", id, "id", 404);
      return price;
    });
    route("GET", "/v1/products", "stripe.products.list", (_req, p) =>
      listOf(PRODUCTS, "/v1/products", p),
    );
    route("GET", "/v1/products/:id", "stripe.products.retrieve", (req) => {
      const id = (req.params as { id: string }).id;
      const product = PRODUCTS.find((x) => x.id === id);
      if (!product) throw noSuch("product", id, "id", 404);
      return product;
    });

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
      const now = this.ctx.clock.nowSeconds();
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
      this.s.checkoutSessions[id] = session;
      this.ctx.changed();
      return session;
    });
    route("GET", "/v1/checkout/sessions/:id", "stripe.checkout.sessions.retrieve", (req) => {
      const id = (req.params as { id: string }).id;
      const session = this.s.checkoutSessions[id];
      if (!session) throw noSuch("checkout.session", id, "session", 404);
      return session;
    });
    route("POST", "/v1/checkout/sessions/:id/expire", "stripe.checkout.sessions.expire", (req) => {
      const id = (req.params as { id: string }).id;
      const session = this.s.checkoutSessions[id];
      if (!session) throw noSuch("checkout.session", id, "session", 404);
      if (session.status !== "open") {
        throw new StripeError(
          400,
          "invalid_request_error",
          `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status as string}".`,
        );
      }
      session.status = "expired";
      this.emit("checkout.session.expired", publicObject(session));
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
        const id = newId("bps");
        const session: StripeObject = {
          id,
          object: "billing_portal.session",
          configuration: "bpc_sandbox_default",
          created: this.ctx.clock.nowSeconds(),
          customer: customerId,
          flow: null,
          livemode: false,
          locale: null,
          on_behalf_of: null,
          return_url: str(p.return_url) ?? null,
          url: `${base}/billing.stripe.com/p/session/${id}`,
        };
        this.s.portalSessions[id] = session;
        this.ctx.changed();
        return session;
      },
    );

    route("GET", "/v1/subscriptions", "stripe.subscriptions.list", (_req, p) => {
      const cust = str(p.customer);
      const status = str(p.status);
      const all = Object.values(this.s.subscriptions).filter(
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
      this.updateSubscription(sub, {
        price,
        cancelAtPeriodEnd: cancel === undefined ? undefined : cancel === "true",
        metadata: p.metadata ? meta(p.metadata) : undefined,
      });
      return sub;
    });
    route("DELETE", "/v1/subscriptions/:id", "stripe.subscriptions.cancel", (req) => {
      const sub = subscription((req.params as { id: string }).id);
      this.cancelNow(sub);
      return sub;
    });
    route("GET", "/v1/invoices/:id", "stripe.invoices.retrieve", (req) => {
      const id = (req.params as { id: string }).id;
      const inv = this.s.invoices[id];
      if (!inv) throw noSuch("invoice", id, "id", 404);
      return inv;
    });
    route("GET", "/v1/invoices", "stripe.invoices.list", (_req, p) => {
      const cust = str(p.customer);
      const sub = str(p.subscription);
      const all = Object.values(this.s.invoices).filter(
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
      const rec = this.s.events.find((e) => e.event.id === id);
      if (!rec) throw noSuch("event", id, "id", 404);
      return rec.event;
    });
    route("GET", "/v1/events", "stripe.events.list", (_req, p) => {
      const type = str(p.type);
      return listOf(
        this.s.events
          .map((e) => e.event)
          .filter((e) => !type || e.type === type)
          .reverse(),
        "/v1/events",
        p,
      );
    });

    // ---------- hosted pages ----------
    app.get("/checkout.stripe.com/c/pay/:id", async (req, reply) => {
      if (!(await this.ctx.enter(req, reply, "stripe.checkout.page"))) return reply;
      const session = this.s.checkoutSessions[(req.params as { id: string }).id];
      if (!session)
        return reply
          .code(404)
          .type("text/html")
          .send(checkoutPage({ missing: true }));
      const price = priceById(session.__price as string)!;
      const email =
        (session.customer_email as string | null) ??
        (session.customer
          ? (this.s.customers[session.customer as string]?.email as string | null)
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
      if (!(await this.ctx.enter(req, reply, "stripe.checkout.submit"))) return reply;
      const id = (req.params as { id: string }).id;
      const session = this.s.checkoutSessions[id];
      if (!session)
        return reply
          .code(404)
          .type("text/html")
          .send(checkoutPage({ missing: true }));
      const f = form(req);
      if (
        session.status !== "open" ||
        (session.expires_at as number) <= this.ctx.clock.nowSeconds()
      ) {
        return reply
          .code(410)
          .type("text/html")
          .send(checkoutPage({ missing: true }));
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
      this.completeCheckout(session);
      return reply.redirect((session.success_url as string).replace("{CHECKOUT_SESSION_ID}", id));
    });
    app.get("/billing.stripe.com/p/session/:id", async (req, reply) => {
      if (!(await this.ctx.enter(req, reply, "stripe.portal.page"))) return reply;
      const session = this.s.portalSessions[(req.params as { id: string }).id];
      if (!session)
        return reply
          .code(404)
          .type("text/html")
          .send(portalPage({ missing: true }));
      const cust = this.s.customers[session.customer as string]!;
      const subs = Object.values(this.s.subscriptions).filter(
        (s) => s.customer === cust.id && s.status !== "canceled",
      );
      return reply.type("text/html").send(
        portalPage({
          session,
          customer: cust,
          subscriptions: subs,
          prices: PRICES,
          notice: (req.query as { notice?: string }).notice,
        }),
      );
    });
    app.post("/billing.stripe.com/p/session/:id", async (req, reply) => {
      if (!(await this.ctx.enter(req, reply, "stripe.portal.submit"))) return reply;
      const id = (req.params as { id: string }).id;
      const session = this.s.portalSessions[id];
      if (!session)
        return reply
          .code(404)
          .type("text/html")
          .send(portalPage({ missing: true }));
      const f = form(req);
      const sub = this.s.subscriptions[f.subscription ?? ""];
      if (!sub || sub.customer !== session.customer)
        return reply.redirect(`/billing.stripe.com/p/session/${id}`);
      let notice = "";
      if (f.action === "switch") {
        const price = priceById(f.price);
        if (price) {
          this.updateSubscription(sub, { price });
          notice = `Switched to ${price.nickname as string}.`;
        }
      } else if (f.action === "cancel") {
        this.updateSubscription(sub, { cancelAtPeriodEnd: true });
        notice = "Your plan will be canceled at the end of the billing period.";
      } else if (f.action === "renew") {
        this.updateSubscription(sub, { cancelAtPeriodEnd: false });
        notice = "Your plan was renewed.";
      } else if (f.action === "cancel_now") {
        this.cancelNow(sub);
        notice = "Your plan was canceled.";
      }
      return reply.redirect(
        `/billing.stripe.com/p/session/${id}?notice=${encodeURIComponent(notice)}`,
      );
    });
  }
}

/** Form bodies parsed by formbody keep `a[]` as arrays already; nothing else to merge. */
function rawArrays(_req: FastifyRequest): Record<string, unknown> {
  return {};
}

/** Hides the sandbox's private bookkeeping fields (prefixed with __ or internal names). */
export function publicObject(o: StripeObject | Record<string, unknown>): StripeObject {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k.startsWith("__") || k === "subscription_data_metadata") continue;
    out[k] = v;
  }
  return out as StripeObject;
}

function expand(ctx: Ctx, o: StripeObject, paths: string[]): StripeObject {
  const s = ctx.state.stripe;
  const lookup = (id: unknown): unknown => {
    if (typeof id !== "string") return id;
    return (
      s.customers[id] ??
      s.subscriptions[id] ??
      s.invoices[id] ??
      s.checkoutSessions[id] ??
      PRICES.find((p) => p.id === id) ??
      PRODUCTS.find((p) => p.id === id) ??
      id
    );
  };
  const out = structuredClone(o) as Record<string, unknown>;
  for (const path of paths) {
    const [first, ...rest] = path.split(".");
    if (!first) continue;
    if (first === "line_items" && o.object === "checkout.session") {
      const price =
        priceById(o.__price as string) ??
        priceById((s.checkoutSessions[o.id]?.__price as string) ?? "");
      out.line_items = {
        object: "list",
        data: price
          ? [
              {
                id: newId("li"),
                object: "item",
                amount_total: price.unit_amount,
                currency: "usd",
                description: price.nickname,
                price,
                quantity: 1,
              },
            ]
          : [],
        has_more: false,
        url: `/v1/checkout/sessions/${o.id}/line_items`,
      };
      continue;
    }
    if (first === "data" && Array.isArray(out.data)) {
      out.data = (out.data as StripeObject[]).map((d) => expand(ctx, d, [rest.join(".")]));
      continue;
    }
    if (first in out) {
      const expanded = lookup(out[first]);
      out[first] =
        expanded && typeof expanded === "object" && rest.length
          ? expand(ctx, publicObject(expanded as StripeObject), [rest.join(".")])
          : expanded;
      if (out[first] && typeof out[first] === "object")
        out[first] = publicObject(out[first] as StripeObject);
    }
  }
  return out as StripeObject;
}

export function registerStripe(app: FastifyInstance, ctx: Ctx): StripeSim {
  const sim = new StripeSim(ctx);
  sim.register(app);
  return sim;
}

export type { FastifyReply };
