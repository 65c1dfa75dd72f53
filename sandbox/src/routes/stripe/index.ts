import type { FastifyInstance } from "fastify";
import type { Ctx } from "../../context.ts";
import { registerCheckout } from "./checkout.ts";
import { registerCustomers } from "./customers.ts";
import { registerHostedPages } from "./hosted.ts";
import { stripeRest } from "./rest.ts";
import { StripeSim } from "./sim.ts";
import { registerSubscriptions } from "./subscriptions.ts";

export { nest, PRICES, PRODUCTS, priceById, publicObject } from "./objects.ts";
export { StripeSim } from "./sim.ts";

export function registerStripe(app: FastifyInstance, ctx: Ctx): StripeSim {
  const sim = new StripeSim(ctx);
  const rest = stripeRest(app, sim);
  registerCustomers(sim, rest);
  registerCheckout(sim, rest);
  registerSubscriptions(sim, rest);
  registerHostedPages(app, sim);
  return sim;
}
