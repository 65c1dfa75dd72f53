import { meta, PRICES, PRODUCTS, priceById, str, strings } from "./objects.ts";
import type { StripeRest } from "./rest.ts";
import type { StripeSim } from "./sim.ts";

/** Customers, prices and products. */
export function registerCustomers(
  sim: StripeSim,
  { route, noSuch, listOf, customer }: StripeRest,
): void {
  route("POST", "/v1/customers", "stripe.customers.create", (_req, p) =>
    sim.createCustomer(str(p.email), str(p.name), meta(p.metadata)),
  );
  route("GET", "/v1/customers", "stripe.customers.list", (_req, p) => {
    const email = str(p.email);
    const all = Object.values(sim.s.customers).filter(
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
    if (p.metadata) c.metadata = { ...(c.metadata as Record<string, string>), ...meta(p.metadata) };
    sim.emit("customer.updated", c);
    return c;
  });
  route("DELETE", "/v1/customers/:id", "stripe.customers.del", (req) => {
    const c = customer((req.params as { id: string }).id, "id", 404);
    // As at Stripe: deleting a customer cancels its subscriptions at once.
    for (const sub of Object.values(sim.s.subscriptions)) {
      if (sub.customer === c.id) sim.cancelNow(sub);
    }
    c.deleted = true;
    sim.emit("customer.deleted", c);
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
}
