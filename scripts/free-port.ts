import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * Where the kernel hands out ports on its own: to outgoing connections and to `listen(0)`
 * (Linux: ip_local_port_range; elsewhere its usual range).
 */
function ephemeralRange(): [number, number] {
  try {
    const [low = Number.NaN, high = Number.NaN] = readFileSync(
      "/proc/sys/net/ipv4/ip_local_port_range",
      "utf8",
    )
      .trim()
      .split(/\s+/)
      .map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low <= high) return [low, high];
  } catch {}
  return [32768, 60999];
}

/** The ports outside that range to draw from: below it, or above it when it starts low. */
function drawRange(): [number, number] {
  const [low, high] = ephemeralRange();
  return low - LOWEST >= 65535 - high ? [LOWEST, low - 1] : [high + 1, 65535];
}

const LOWEST = 10_000;
const handedOut = new Set<number>();

const listensOn = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });

/**
 * A loopback port for a process started next to listen on. A port `listen(0)` found free is
 * in the kernel's ephemeral range, where any outgoing connection (a database pool, a test's
 * requests) may take it in the seconds before the child listens: EADDRINUSE, seen in CI as the
 * end-to-end suite's Keepsakes started side by side. So the port is drawn at random outside that range (below it, as a
 * rule), where the kernel never hands one out, checked free, and never handed out twice by this
 * process.
 */
export async function freePort(): Promise<number> {
  const [lowest, highest] = drawRange();
  for (let tries = 0; tries < 200; tries++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (handedOut.has(port)) continue;
    if (await listensOn(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`No free loopback port between ${lowest} and ${highest}`);
}
