import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Where an S3 endpoint may point. A user types the endpoint, and Keepsake's servers call it:
 * unless the operator allows it (`S3_PRIVATE_ENDPOINTS`, on in sandbox mode, where the
 * sandbox's store is on loopback), an endpoint must be a public address, never one on
 * Keepsake's own network (loopback, private ranges, link-local such as a cloud's metadata
 * service at 169.254.169.254, carrier-grade NAT, unique-local IPv6). It is checked when the
 * form is tested or saved, for a clear answer, and again on every connection, as a name can
 * resolve elsewhere later.
 */

/** Whether an address is a public (global unicast) one; IPv4 inside IPv6 is judged as IPv4. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === "unicast";
}

const notPublic = (host: string, address: string) =>
  Object.assign(
    new Error(
      host === address
        ? `The endpoint ${host} is an address on Keepsake's own network`
        : `The endpoint ${host} is at ${address}, an address on Keepsake's own network`,
    ),
    { code: "ENOTPUBLIC" },
  );

/** `dns.lookup`, refusing a name any of whose addresses is not public. */
export function publicOnlyLookup(
  hostname: string,
  options: LookupOptions,
  callback: (
    err: NodeJS.ErrnoException | null,
    address: string | LookupAddress[],
    family?: number,
  ) => void,
): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const wrong = addresses.find((a) => !isPublicAddress(a.address));
    if (wrong) return callback(notPublic(hostname, wrong.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first)
      return callback(
        Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }),
        [],
      );
    callback(null, first.address, first.family);
  });
}

const hostOf = (endpoint: string) => new URL(endpoint).hostname.replace(/^\[|\]$/g, "");

/** The refusal (code ENOTPUBLIC) of an endpoint whose host is an address that is not public. */
export function literalRefusal(endpoint: string): Error | null {
  const host = hostOf(endpoint);
  return isIP(host) && !isPublicAddress(host) ? notPublic(host, host) : null;
}

/**
 * Why an endpoint may not be used, or null: its host (an address, or every address its name
 * resolves to now) must be public. A name that does not resolve is left to the connection test.
 */
export async function endpointAddressProblem(endpoint: string): Promise<string | null> {
  const host = hostOf(endpoint);
  if (isIP(host)) return literalRefusal(endpoint)?.message ?? null;
  const addresses = await new Promise<LookupAddress[]>((resolve) =>
    dnsLookup(host, { all: true }, (err, found) => resolve(err ? [] : found)),
  );
  const wrong = addresses.find((a) => !isPublicAddress(a.address));
  return wrong ? notPublic(host, wrong.address).message : null;
}

/**
 * Connection agents whose every connection checks the address it goes to (`publicOnlyLookup`;
 * an address literal is checked before the request by `endpointAddressProblem`).
 */
export function publicOnlyAgents() {
  const options = { keepAlive: true, maxSockets: 50, lookup: publicOnlyLookup };
  return { httpAgent: new HttpAgent(options), httpsAgent: new HttpsAgent(options) };
}
