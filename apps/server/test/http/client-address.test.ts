import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { clientKey } from "../../src/http/client-address.ts";
import { metricsRefusal } from "../../src/http/metrics.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

/**
 * Issue 35, item 4: client addresses. Per-client limits count under the address the trusted
 * proxy appended (never the left-most X-Forwarded-For, which the client writes), an IPv6 client
 * by its /64; /metrics without a token answers no request that came through a proxy.
 */
const message = (n: number) => ({
  name: "Ann",
  email: "ann@example.com",
  subject: `Hello ${n}`,
  message: "A question about backups.",
});

describe("TRUST_PROXY", () => {
  it("takes false, a hop count, or a list of addresses and ranges", () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "false" }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.5, 10.1.0.0/16,loopback" }).TRUST_PROXY).toEqual([
      "10.0.0.5",
      "10.1.0.0/16",
      "loopback",
    ]);
    expect(loadConfig({ TRUST_PROXY: "2001:db8::/32" }).TRUST_PROXY).toEqual(["2001:db8::/32"]);
  });

  it.each([
    ["true", /left-most X-Forwarded-For/],
    ["yes", /left-most X-Forwarded-For/],
    ["10.0.0.300", /"10.0.0.300" is not an address/],
    ["proxy.example.com", /not an address or CIDR range/],
  ])("refuses TRUST_PROXY=%s, saying what to set", (value, words) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(words);
  });
});

describe("the per-client key", () => {
  it("is an IPv4 address as it is, and an IPv6 address's /64", () => {
    expect(clientKey("198.51.100.7")).toBe("198.51.100.7");
    expect(clientKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(clientKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:0db8:0001:0002:ffff:eeee:dddd:cccc")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientKey("::1")).toBe("::/64");
  });
});

describe("behind one proxy (TRUST_PROXY=1)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ TRUST_PROXY: "1", CONTACT_MAX_PER_HOUR: "5" });
  });
  afterAll(async () => {
    await t.close();
  });

  const viaProxy = (n: number, forwardedFor: string) =>
    t.app.inject({
      method: "POST",
      url: "/api/contact",
      remoteAddress: "10.0.0.5",
      headers: { "x-forwarded-for": forwardedFor },
      payload: message(n),
    });

  it("keys the contact limit on the address the proxy appended, whatever the client wrote before it", async () => {
    const codes: number[] = [];
    for (let i = 1; i <= 8; i++) {
      // A client rotating what it writes; the proxy appends the address it saw.
      codes.push((await viaProxy(i, `192.0.2.${i}, 203.0.113.9`)).statusCode);
    }
    expect(codes).toEqual([201, 201, 201, 201, 201, 429, 429, 429]);
    const rows = await t.ctx.db
      .selectFrom("contact_messages")
      .select("ip")
      .where("ip", "=", "203.0.113.9")
      .execute();
    expect(rows.length).toBe(5);
    // Another client behind the same proxy has its own count.
    expect((await viaProxy(9, "203.0.113.10")).statusCode).toBe(201);
  });

  it("keys IPv6 clients by their /64 (every per-client limit counts under the same key)", async () => {
    const codes: number[] = [];
    for (let i = 1; i <= 6; i++) {
      codes.push((await viaProxy(i, `2001:db8:aa:bb::${i.toString(16)}`)).statusCode);
    }
    expect(codes).toEqual([201, 201, 201, 201, 201, 429]);
    expect((await viaProxy(7, "2001:db8:aa:bc::1")).statusCode).toBe(201);
    // Sign-in failures per client (LOGIN_MAX_FAILURES 5 × 4 = 20), addresses rotating in the /64.
    const login = (i: number) =>
      t.app.inject({
        method: "POST",
        url: "/api/auth/login",
        remoteAddress: "10.0.0.5",
        headers: { "x-forwarded-for": `2001:db8:cc:dd:${i.toString(16)}::1` },
        payload: { email: `nobody${i}@example.com`, password: "Wrong-password1" },
      });
    const logins: number[] = [];
    for (let i = 1; i <= 21; i++) logins.push((await login(i)).statusCode);
    expect(logins.slice(0, 20).every((c) => c === 401)).toBe(true);
    expect(logins[20]).toBe(429);
  });

  it("refuses /metrics without a token to a request that came through the proxy, even from loopback", async () => {
    const direct = await t.app.inject({ method: "GET", url: "/metrics", remoteAddress: "::1" });
    expect(direct.statusCode).toBe(200);
    const proxied = await t.app.inject({
      method: "GET",
      url: "/metrics",
      remoteAddress: "127.0.0.1",
      headers: { "x-forwarded-for": "127.0.0.1" },
    });
    expect(proxied.statusCode).toBe(403);
    expect(JSON.parse(proxied.body).detail).toMatch(/METRICS_TOKEN/);
  });
});

describe("without a trusted proxy (the default)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ CONTACT_MAX_PER_HOUR: "5" });
  });
  afterAll(async () => {
    await t.close();
  });

  it("ignores X-Forwarded-For: the socket's address is the client", async () => {
    const codes: number[] = [];
    for (let i = 1; i <= 6; i++) {
      const res = await t.app.inject({
        method: "POST",
        url: "/api/contact",
        remoteAddress: "198.51.100.20",
        headers: { "x-forwarded-for": `192.0.2.${i}` },
        payload: message(i),
      });
      codes.push(res.statusCode);
    }
    expect(codes).toEqual([201, 201, 201, 201, 201, 429]);
  });

  it("refuses /metrics to a loopback request carrying forwarding headers", async () => {
    for (const headers of [
      { "x-forwarded-for": "203.0.113.1" },
      { forwarded: "for=203.0.113.1" },
      { "x-real-ip": "203.0.113.1" },
    ]) {
      const res = await t.app.inject({
        method: "GET",
        url: "/metrics",
        remoteAddress: "127.0.0.1",
        headers,
      });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
    }
    // The worker's metrics server applies the same rule.
    expect(metricsRefusal(undefined, "127.0.0.1", undefined, true)?.status).toBe(403);
    expect(metricsRefusal(undefined, "127.0.0.1", undefined, false)).toBeNull();
  });
});
