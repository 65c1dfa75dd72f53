import type { FastifyRequest } from "fastify";
import ipaddr from "ipaddr.js";

/**
 * The key every per-client limit counts under (sign-in failures, account mail, contact messages,
 * status subscriptions): the client's address as Fastify resolved it (`TRUST_PROXY`), an IPv6
 * address cut to its /64 (one household or server holds a whole /64, and rotates within it at
 * will), an IPv4-mapped IPv6 address as its IPv4 address.
 */
export function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  }
  if (ip.kind() === "ipv4") return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

/** The per-client limit key of a request. */
export const clientOf = (req: FastifyRequest): string => clientKey(req.ip);

/** Headers a proxy adds; a request carrying one came through a proxy, whatever its socket. */
const FORWARDING = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-real-ip", "via"];

/** Whether the request says (or Fastify found) that it came through a proxy. */
export function cameThroughProxy(
  headers: Record<string, string | string[] | undefined>,
  resolvedIps?: readonly string[],
): boolean {
  if (FORWARDING.some((h) => headers[h] !== undefined)) return true;
  return (resolvedIps?.length ?? 0) > 1;
}

/**
 * Fastify's `trustProxy` for TRUST_PROXY: nothing, the proxies' addresses, or a hop count (the
 * socket's peer and the n − 1 proxies before it are trusted: the address the n-th appended to
 * X-Forwarded-For is the client's). Fastify 5 reads a bare number as "trust nothing" (it cannot
 * check the peer is a proxy), so a count is given as the function it used to mean; behind a
 * count, the API's port must be reachable only through the proxy (compose binds it to 127.0.0.1).
 */
export function trustProxyOption(
  setting: false | number | string[],
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== "number") return setting;
  return (_address, hop) => hop < setting;
}
