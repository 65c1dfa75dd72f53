import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { SANDBOX_CREDENTIALS } from "../../credentials.ts";
import { sendStripeError } from "../../errors.ts";
import type { StripeObject } from "../../state.ts";
import { form } from "../../util.ts";
import {
  API_VERSION,
  type Nested,
  nest,
  newId,
  PRICES,
  PRODUCTS,
  priceById,
  publicObject,
  StripeError,
  str,
  strings,
} from "./objects.ts";
import type { StripeSim } from "./sim.ts";

const S = SANDBOX_CREDENTIALS.stripe;

/** What the resource files register their `/v1` routes with. */
export type StripeRest = ReturnType<typeof stripeRest>;

/**
 * The `/v1` REST plumbing: API key check, idempotency replay, form parsing, `expand[]` and
 * Stripe's error bodies around each route's `fn`.
 */
export function stripeRest(app: FastifyInstance, sim: StripeSim) {
  const idempotency = new Map<string, { status: number; body: unknown }>();
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
        if (!(await sim.ctx.enter(req, reply, endpoint))) return reply;
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
        const cached = idem ? idempotency.get(`${url}|${idem}`) : undefined;
        if (cached)
          return reply.code(cached.status).header("idempotent-replayed", "true").send(cached.body);
        const p = nest({
          ...((req.query as Record<string, unknown>) ?? {}),
          ...form(req),
          ...rawArrays(req),
        });
        try {
          const result = fn(req, p, sim.ctx.baseUrl(req));
          const body = expand(sim.ctx, publicObject(result as StripeObject), strings(p.expand));
          if (idem) idempotency.set(`${url}|${idem}`, { status: 200, body });
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
    const c = id ? sim.s.customers[id] : undefined;
    if (!c || c.deleted) throw noSuch("customer", id ?? "", param, status);
    return c;
  };
  const subscription = (id: string) => {
    const sub = sim.s.subscriptions[id];
    if (!sub) throw noSuch("subscription", id, "id", 404);
    return sub;
  };
  return { route, missing, noSuch, listOf, customer, subscription };
}

/** Form bodies parsed by formbody keep `a[]` as arrays already; nothing else to merge. */
function rawArrays(_req: FastifyRequest): Record<string, unknown> {
  return {};
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
