import { SANDBOX_PRICE_AMOUNTS, SANDBOX_PRICES } from "../../credentials.ts";
import type { StripeObject } from "../../state.ts";
import { randomId } from "../../util.ts";

export const API_VERSION = "2026-10-28.endive";

export class StripeError extends Error {
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

export type Nested = { [key: string]: Nested | string };

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

export function list(n: Nested | string | undefined): Nested[] {
  if (!n || typeof n === "string") return [];
  return Object.keys(n)
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => n[k])
    .filter((v): v is Nested => typeof v === "object");
}
export function strings(n: Nested | string | undefined): string[] {
  if (n === undefined) return [];
  if (typeof n === "string") return [n];
  return Object.values(n).filter((v): v is string => typeof v === "string");
}
export function str(n: Nested | string | undefined): string | undefined {
  return typeof n === "string" ? n : undefined;
}
export function meta(n: Nested | string | undefined): Record<string, string> {
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

export function addPeriod(seconds: number, price: StripeObject): number {
  const d = new Date(seconds * 1000);
  if ((price.recurring as { interval: string }).interval === "year")
    d.setUTCFullYear(d.getUTCFullYear() + 1);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return Math.floor(d.getTime() / 1000);
}

export function newId(prefix: string): string {
  return `${prefix}_${randomId(18).replace(/[-_]/g, "X")}`;
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
