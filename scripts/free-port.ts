import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * Where the kernel hands out ports on its own: to outgoing connections and to `listen(0)`
 * (Linux: ip_local_port_range; elsewhere its usual start).
 */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/);
    const n = Number(low);
    return Number.isInteger(n) && n > 2048 ? n : 32768;
  } catch {
    return 32768;
  }
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
 * requests) may take it in the seconds before the child listens: EADDRINUSE, seen in CI when
 * stages ran side by side. So the port is drawn at random below that range, where the kernel
 * never hands one out, checked free, and never handed out twice by this process.
 */
export async function freePort(): Promise<number> {
  const highest = ephemeralStart() - 1;
  for (let tries = 0; tries < 200; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
    if (handedOut.has(port)) continue;
    if (await listensOn(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`No free loopback port between ${LOWEST} and ${highest}`);
}
