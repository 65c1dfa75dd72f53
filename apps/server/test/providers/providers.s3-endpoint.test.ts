import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createS3Client } from "../../src/providers/s3/s3.client.ts";
import { endpointAddressProblem, isPublicAddress } from "../../src/providers/s3/s3-endpoint.ts";
import { s3Settings } from "../support/destinations.ts";

/**
 * A user's S3 endpoint is called from Keepsake's servers: unless the operator allows it, it may
 * not reach Keepsake's own network (loopback, private ranges, a cloud's metadata service).
 */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});

const s3Calls = async () => {
  const res = await fetch(`${sandbox.url}/_control/calls`);
  const { calls } = (await res.json()) as { calls: Record<string, number> };
  return Object.entries(calls)
    .filter(([k]) => k.startsWith("s3."))
    .reduce((n, [, v]) => n + v, 0);
};

describe("S3 endpoints on Keepsake's own network", () => {
  it("tells public addresses from the rest, IPv4 inside IPv6 included", () => {
    for (const a of ["8.8.8.8", "52.95.110.1", "2606:4700::6810:84e5", "::ffff:8.8.8.8"])
      expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.9",
      "192.168.1.10",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:169.254.169.254",
      "224.0.0.1",
      "not an address",
    ])
      expect(isPublicAddress(a), a).toBe(false);
  });

  it("names the address an endpoint is, or resolves to, when it is not public", async () => {
    expect(await endpointAddressProblem("http://169.254.169.254/latest")).toMatch(
      /169\.254\.169\.254.*Keepsake's own network/,
    );
    expect(await endpointAddressProblem("http://[::1]:9000")).toMatch(/::1/);
    expect(await endpointAddressProblem("http://localhost:9000")).toMatch(
      /localhost is at (127\.0\.0\.1|::1)/,
    );
    expect(await endpointAddressProblem("https://8.8.8.8")).toBeNull();
  });

  it("a public-only client sends nothing to a private address, by address or by name", async () => {
    const before = await s3Calls();
    const literal = createS3Client(s3Settings(sandbox), { publicOnly: true });
    const byName = createS3Client(
      { ...s3Settings(sandbox), endpoint: sandbox.urls.s3.replace("127.0.0.1", "localhost") },
      { publicOnly: true },
    );
    for (const client of [literal, byName]) {
      await expect(client.put("probe.txt", [Buffer.from("x")])).rejects.toMatchObject({
        provider: "s3",
        kind: "permission",
        code: "endpoint_not_public",
      });
      await expect(client.head("probe.txt")).rejects.toMatchObject({
        code: "endpoint_not_public",
      });
    }
    expect(await s3Calls()).toBe(before);
    // Allowed (sandbox mode, or S3_PRIVATE_ENDPOINTS=true), the same store answers.
    const allowed = createS3Client(s3Settings(sandbox));
    await allowed.put("probe.txt", [Buffer.from("x")], { overwrite: true });
    expect(await s3Calls()).toBeGreaterThan(before);
  });
});
