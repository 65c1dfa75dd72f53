import { Writable } from "node:stream";
import Fastify from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggerOptions, OneLineRequestLog } from "../../src/http/logging.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ BODY_LIMIT_BYTES: "2048" });
});
afterAll(async () => {
  await t.close();
});

describe("HTTP conventions", () => {
  it("answers unknown API paths with 404 and a detail", async () => {
    const res = await t.call("GET", "/api/does-not-exist");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: "Not Found" });
  });

  it("answers malformed JSON with 400", async () => {
    const res = await t.call("POST", "/api/auth/login", {
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "Malformed JSON body" });
  });

  it("answers an unexpected failure with 500 and a bare detail, never the error itself", async () => {
    const { token } = await t.signUp();
    // A column the session lookup reads goes away in this file's schema (renaming the whole
    // table would let the lookup find another schema's empty sessions table on the search path).
    await sql`ALTER TABLE sessions RENAME COLUMN revoked_at TO revoked_away`.execute(t.ctx.db);
    try {
      const res = await t.call("GET", "/api/auth/me", { token });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ detail: "Internal server error" });
    } finally {
      await sql`ALTER TABLE sessions RENAME COLUMN revoked_away TO revoked_at`.execute(t.ctx.db);
    }
    expect((await t.call("GET", "/api/auth/me", { token })).status).toBe(200);
  });

  it("writes JSON log lines without passwords, tokens or OAuth codes", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = { ...(loggerOptions("info") as object), stream };
    const app = Fastify({ logger, logController: new OneLineRequestLog() });
    app.post("/echo", async (req) => {
      req.log.info({ body: req.body }, "received");
      return { ok: true };
    });
    await app.inject({
      method: "POST",
      url: "/echo?code=oauth-code-123&state=signed-state-456",
      headers: { authorization: "Bearer jwt-secret-789", cookie: "sid=cookie-secret" },
      payload: { password: "Hunter2-password", access_token: "ig-token-abc", email: "a@b.co" },
    });
    await app.close();
    const log = lines.join("");
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(log).toContain("a@b.co");
    expect(log).toContain("/echo?code=[redacted]&state=[redacted]");
    for (const secret of [
      "oauth-code-123",
      "signed-state-456",
      "jwt-secret-789",
      "cookie-secret",
      "Hunter2-password",
      "ig-token-abc",
    ]) {
      expect(log).not.toContain(secret);
    }
  });

  it("answers oversized bodies with 413", async () => {
    const res = await t.call("POST", "/api/auth/register", {
      body: { full_name: "x".repeat(5000), email: "a@b.co", password: "Abcdefg1" },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: "Request body is too large: at most 2 KiB here" });
  });

  it("sets security headers and echoes a request id", async () => {
    const res = await t.call("GET", "/api/health");
    expect(res.status).toBe(200);
    expect(String(res.headers["content-security-policy"])).toContain("default-src 'self'");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(String(res.headers["x-request-id"])).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers["permissions-policy"]).toBe(
      "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    );
    const given = await t.call("GET", "/api/health", { headers: { "x-request-id": "abc-123" } });
    expect(given.headers["x-request-id"]).toBe("abc-123");
  });

  it("reports readiness and metrics", async () => {
    expect((await t.call("GET", "/api/ready")).body).toEqual({ status: "ready" });
    const metrics = await t.call("GET", "/metrics");
    expect(metrics.status).toBe(200);
    expect(String(metrics.body)).toContain("keepsake_http_request_duration_seconds");
  });

  it("serves no SPA fallback for API paths and 404s unknown methods there", async () => {
    const res = await t.call("PUT", "/api/auth/me");
    expect(res.status).toBe(404);
  });
});
