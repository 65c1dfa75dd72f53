import ipaddr from "ipaddr.js";
import { z } from "zod";

/** Field parsers of the environment's schema (config.ts). */
export const boolish = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

/**
 * TRUST_PROXY, with Fastify's `trustProxy` semantics: `false` (the socket's address is the
 * client), a hop count (the address the n-th proxy from us appended to X-Forwarded-For), or a
 * comma list of the proxies' addresses or CIDR ranges (`loopback`, `linklocal`, `uniquelocal`
 * too). `true` is refused: it takes the left-most X-Forwarded-For, which the client writes.
 */
const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);
export const trustProxy = z
  .string()
  .trim()
  .default("false")
  .transform((v, ctx): false | number | string[] => {
    const value = v.toLowerCase();
    if (value === "" || value === "false" || value === "0" || value === "no") return false;
    if (value === "true" || value === "yes") {
      ctx.addIssue({
        code: "custom",
        message:
          "true would take the left-most X-Forwarded-For, which any client can write: set the number of proxies in front of Keepsake (1 behind one load balancer) or their addresses (10.0.0.5 or 10.0.0.0/8)",
      });
      return z.NEVER;
    }
    if (/^\d+$/.test(value)) return Number(value);
    const list = value.split(",").map((p) => p.trim());
    const bad = list.find(
      (p) => !PROXY_NAMES.has(p) && !ipaddr.isValid(p) && !ipaddr.isValidCIDR(p),
    );
    if (bad !== undefined) {
      ctx.addIssue({
        code: "custom",
        message: `"${bad}" is not an address or CIDR range: use false, a hop count (1) or a comma list of the proxies' addresses`,
      });
      return z.NEVER;
    }
    return list;
  });
