import { readFileSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../../../scripts/free-port.ts";

const [ephemeralStart, ephemeralEnd] = readFileSync(
  "/proc/sys/net/ipv4/ip_local_port_range",
  "utf8",
)
  .trim()
  .split(/\s+/)
  .map(Number) as [number, number];

const listening: Server[] = [];
afterAll(async () => {
  await Promise.all(listening.map((s) => new Promise((r) => s.close(r))));
});

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const srv = createServer((socket) => socket.end());
    srv.once("error", reject);
    srv.listen(port, "127.0.0.1", () => {
      listening.push(srv);
      resolve(srv);
    });
  });

describe("freePort (scripts/free-port.ts): the ports the suites hand to processes they start", () => {
  it("is outside the kernel's ephemeral range, where outgoing connections never take it", async () => {
    // Outgoing connections made meanwhile get their local ports from that range: none can
    // collide with a port handed out.
    const clients = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const srv = await listen(0);
        const address = srv.address();
        const port = typeof address === "object" && address ? address.port : 0;
        return new Promise<number>((resolve, reject) => {
          const socket = connect(port, "127.0.0.1", () => {
            resolve(socket.localPort ?? 0);
            socket.destroy();
          });
          socket.once("error", reject);
        });
      }),
    );
    const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
    const ephemeral = (port: number) => port >= ephemeralStart && port <= ephemeralEnd;
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(ephemeral(port)).toBe(false);
    }
    for (const local of clients) expect(ephemeral(local)).toBe(true);
  });

  it("is free when handed out, and never handed out twice by one process", async () => {
    const ports: number[] = [];
    for (let i = 0; i < 60; i++) {
      const port = await freePort();
      ports.push(port);
      // Taken now: were it handed out again, this process's next listen would fail.
      await listen(port);
    }
    expect(new Set(ports).size).toBe(ports.length);
  });
});
