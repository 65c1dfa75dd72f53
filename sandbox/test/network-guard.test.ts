import { once } from "node:events";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { isLoopbackHost, takeViolations } from "./network-guard.ts";

describe("the network guard every server and sandbox suite runs under", () => {
  it("knows loopback hosts from the rest", () => {
    for (const host of [
      "localhost",
      "127.0.0.1",
      "127.8.0.3",
      "::1",
      "::ffff:127.0.0.1",
      undefined,
    ]) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of [
      "graph.instagram.com",
      "10.0.0.1",
      "192.168.1.2",
      "8.8.8.8",
      "2001:db8::1",
    ]) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it("refuses a connection off the machine, whichever way it is asked for, and records it", async () => {
    // `.invalid` never resolves, so even a broken guard sends nothing anywhere.
    const attempts = [
      () => net.connect({ host: "api.stripe.invalid", port: 443 }),
      () => net.connect(443, "www.googleapis.invalid"),
      () => new net.Socket().connect({ host: "graph.facebook.invalid", port: 443 }),
    ];
    for (const attempt of attempts) {
      const socket = attempt();
      const [error] = (await once(socket, "error")) as [Error];
      expect(error.message).toMatch(/network guard: a test tried to reach .*\.invalid/);
    }
    expect(takeViolations()).toHaveLength(3);
  });

  it("fails a fetch to another host before any byte leaves", async () => {
    await expect(fetch("https://graph.instagram.invalid/me")).rejects.toThrow();
    expect(takeViolations()).toEqual([expect.stringContaining("graph.instagram.invalid")]);
  });

  it("lets loopback connections through", async () => {
    const server = net.createServer((s) => s.end("hi"));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as net.AddressInfo;
    const socket = net.connect(port, "127.0.0.1");
    const [data] = (await once(socket, "data")) as [Buffer];
    expect(data.toString()).toBe("hi");
    server.close();
    expect(takeViolations()).toEqual([]);
  });
});
