// Vitest setup file: any connection to a host off this machine fails the request and the test.
// Server and sandbox suites talk only to the sandbox, the database and themselves, all on loopback.
import net from "node:net";
import { afterEach } from "vitest";

const LOOPBACK_NAMES = new Set(["localhost", "::1", "[::1]"]);

export function isLoopbackHost(host: string | undefined | null): boolean {
  if (!host) return true; // Node defaults to localhost
  const h = host.toLowerCase().replace(/^::ffff:/, "");
  if (LOOPBACK_NAMES.has(h) || h.endsWith(".localhost")) return true;
  return net.isIPv4(h) && h.startsWith("127.");
}

interface ConnectOptions {
  host?: string;
  path?: string;
}

function destination(args: unknown[]): ConnectOptions {
  const [first, second] = args;
  if (Array.isArray(first)) return (first[0] ?? {}) as ConnectOptions; // already normalized by net.connect
  if (first && typeof first === "object") return first as ConnectOptions;
  if (typeof first === "string" && !/^\d+$/.test(first)) return { path: first }; // a unix socket
  return { host: typeof second === "string" ? second : undefined };
}

const violations: string[] = [];
const connect = net.Socket.prototype.connect;

net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
  const to = destination(args);
  if (to.path || isLoopbackHost(to.host)) {
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  }
  const message = `network guard: a test tried to reach ${to.host}, which is not on this machine`;
  violations.push(message);
  process.nextTick(() => this.destroy(new Error(message)));
  return this;
} as typeof net.Socket.prototype.connect;

/** Answers and forgets the connections refused since the last call. */
export function takeViolations(): string[] {
  return violations.splice(0);
}

afterEach(() => {
  const found = takeViolations();
  if (found.length > 0) throw new Error(found.join("\n"));
});
