import { API_RATE_LIMIT_PER_MINUTE, MAX_API_KEYS, apiKeyMessages as m } from "@keepsake/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasApiAccess } from "../../src/billing/tier-rules.ts";
import { redactUrl } from "../../src/http/logging.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { burst } from "../support/burst.ts";

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const userOn = (tier: "free" | "premium" | "pro" | "agency") => t.signUp({ tier });

async function createKey(token: string, name = "script") {
  const res = await t.call("POST", "/api/api-keys", { token, body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; key: string; prefix: string; name: string };
}

/** Every row of every application table, as JSON text: what a database dump would hold. */
async function dump(): Promise<string> {
  const { rows: tables } = await t.ctx.pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  let out = "";
  for (const { table_name } of tables) {
    const { rows } = await t.ctx.pool.query(
      `SELECT row_to_json(x)::text AS j FROM "${table_name}" x`,
    );
    out += rows.map((r) => r.j).join("\n");
  }
  return out;
}

describe("logs", () => {
  it("never write an API key found in a URL", () => {
    const key = "ks_live_abcDEF123_-xyz";
    for (const url of [
      `/api/v1/posts?api_key=${key}`,
      `/api/v1/posts/${key}`,
      `/x?q=1&key=${key}`,
    ]) {
      expect(redactUrl(url)).not.toContain("abcDEF123");
    }
  });
});

describe("tier rule", () => {
  it("gives API access to pro and agency (and legacy PRO), to nobody else", () => {
    expect(["pro", "agency", "PRO"].map(hasApiAccess)).toEqual([true, true, true]);
    expect(["free", "premium", "BASIC", "", "enterprise"].map(hasApiAccess)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("API keys", () => {
  it("free and premium users see the tab's state but cannot create a key", async () => {
    for (const tier of ["free", "premium"] as const) {
      const u = await userOn(tier);
      const list = await t.call("GET", "/api/api-keys", { token: u.token });
      expect(list.body).toEqual({ keys: [], api_access: false, limit: MAX_API_KEYS });
      const create = await t.call("POST", "/api/api-keys", { token: u.token, body: { name: "x" } });
      expect(create).toMatchObject({ status: 403, body: { detail: m.noAccess } });
    }
  });

  it("lives: created (shown once), used (last use recorded), revoked (401 at once)", async () => {
    const u = await userOn("pro");
    const created = await createKey(u.token, "  nightly export  ");
    expect(created.key).toMatch(/^ks_live_[A-Za-z0-9_-]{43}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));
    expect(created.name).toBe("nightly export");

    const listed = await t.call("GET", "/api/api-keys", { token: u.token });
    expect(listed.body.api_access).toBe(true);
    expect(listed.body.keys).toEqual([
      {
        id: created.id,
        name: "nightly export",
        prefix: created.prefix,
        created_at: expect.any(String),
        last_used_at: null,
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(created.key);

    const used = await t.call("GET", "/api/v1/stats", { token: created.key });
    expect(used.status).toBe(200);
    expect(used.body).toHaveProperty("total_posts", 0);
    const after = await t.call("GET", "/api/api-keys", { token: u.token });
    expect(after.body.keys[0].last_used_at).toBe(t.clock.now().toISOString());

    const revoked = await t.call("DELETE", `/api/api-keys/${created.id}`, { token: u.token });
    expect(revoked.status).toBe(200);
    const refused = await t.call("GET", "/api/v1/stats", { token: created.key });
    expect(refused).toMatchObject({ status: 401, body: { detail: m.invalid } });
    expect((await t.call("GET", "/api/api-keys", { token: u.token })).body.keys).toEqual([]);
    expect((await t.call("DELETE", `/api/api-keys/${created.id}`, { token: u.token })).status).toBe(
      404,
    );
  });

  it("stores only a hash: a dump of the database holds no key", async () => {
    const u = await userOn("agency");
    const created = await createKey(u.token);
    await t.call("GET", "/api/v1/accounts", { token: created.key });
    const all = await dump();
    expect(all).toContain(created.prefix);
    expect(all).not.toContain(created.key);
    expect(all).not.toContain(created.key.slice(12));
  });

  it("accepts a key only on /api/v1, only as Authorization: Bearer", async () => {
    const u = await userOn("pro");
    const { key } = await createKey(u.token);
    expect((await t.call("GET", "/api/auth/me", { token: key })).status).toBe(401);
    expect((await t.call("GET", "/api/sync/posts", { token: key })).status).toBe(401);
    expect((await t.call("GET", "/api/api-keys", { token: key })).status).toBe(401);
    expect((await t.call("POST", "/api/api-keys", { token: key, body: {} })).status).toBe(401);
    // A session token is not an API key.
    expect((await t.call("GET", "/api/v1/posts", { token: u.token })).status).toBe(401);
    for (const q of ["api_key", "key", "token", "access_token"]) {
      const res = await t.call("GET", `/api/v1/posts?${q}=${key}`);
      expect(res).toMatchObject({ status: 401, body: { detail: m.missing } });
    }
    expect((await t.call("GET", "/api/v1/posts")).status).toBe(401);
    // The key is checked before the request: no key and a bad query is still a 401.
    expect((await t.call("GET", "/api/v1/posts?limit=0")).status).toBe(401);
    expect((await t.call("POST", "/api/v1/sync", { body: { account_id: "x" } })).status).toBe(401);
    expect((await t.call("GET", "/api/v1/posts", { token: "ks_live_nope" })).status).toBe(401);
  });

  it("allows at most 10 live keys per user", async () => {
    const u = await userOn("pro");
    const keys = [];
    for (let i = 0; i < MAX_API_KEYS; i++) keys.push(await createKey(u.token, `k${i}`));
    const over = await t.call("POST", "/api/api-keys", { token: u.token, body: { name: "x" } });
    expect(over).toMatchObject({ status: 409, body: { detail: m.limitReached } });
    await t.call("DELETE", `/api/api-keys/${keys[0]?.id}`, { token: u.token });
    await createKey(u.token, "again");
  });

  it("30 keys asked for at once: exactly the limit are created", async () => {
    const u = await userOn("pro");
    const { statuses } = await burst(30, (i) =>
      t.call("POST", "/api/api-keys", { token: u.token, body: { name: `burst ${i}` } }),
    );
    expect(statuses).toEqual({ 201: MAX_API_KEYS, 409: 30 - MAX_API_KEYS });
    const live = await t.call("GET", "/api/api-keys", { token: u.token });
    expect(live.body.keys).toHaveLength(MAX_API_KEYS);
  });

  it("two API processes share one key's budget: a burst split across both gets exactly the limit", async () => {
    const second = await createTestApp({}, { database: { ...t.database, close: async () => {} } });
    try {
      // Both processes read the same time, early in a minute.
      second.clock.advance(t.clock.now().getTime() - second.clock.now().getTime());
      const intoMinute = 60_000 - (t.clock.now().getTime() % 60_000) + 1_000;
      t.clock.advance(intoMinute);
      second.clock.advance(intoMinute);
      const u = await userOn("pro");
      const { key } = await createKey(u.token);
      for (let i = 0; i < API_RATE_LIMIT_PER_MINUTE - 10; i++) {
        expect((await t.call("GET", "/api/v1/stats", { token: key })).status).toBe(200);
      }
      const { statuses } = await burst(30, (i) =>
        (i % 2 ? second : t).call("GET", "/api/v1/stats", { token: key }),
      );
      expect(statuses).toEqual({ 200: 10, 429: 20 });
    } finally {
      await second.close();
    }
  });

  it("30 requests of one key sent at once: exactly the per-minute limit pass", async () => {
    const u = await userOn("pro");
    const { key } = await createKey(u.token);
    // Leave room for exactly 10 in this minute, then send 30 at once.
    for (let i = 0; i < API_RATE_LIMIT_PER_MINUTE - 10; i++) {
      expect((await t.call("GET", "/api/v1/stats", { token: key })).status).toBe(200);
    }
    const { statuses } = await burst(30, () => t.call("GET", "/api/v1/stats", { token: key }));
    expect(statuses).toEqual({ 200: 10, 429: 20 });
    t.clock.advance(60_000);
  });

  it("refuses bad input with 422 and other users' keys with 404", async () => {
    const u = await userOn("pro");
    const other = await userOn("pro");
    for (const body of [{}, { name: "" }, { name: "x".repeat(101) }, { name: 5 }]) {
      const res = await t.call("POST", "/api/api-keys", { token: u.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(typeof res.body.detail).toBe("string");
    }
    const theirs = await createKey(other.token);
    expect((await t.call("DELETE", `/api/api-keys/${theirs.id}`, { token: u.token })).status).toBe(
      404,
    );
    expect((await t.call("DELETE", "/api/api-keys/not-an-id", { token: u.token })).status).toBe(
      404,
    );
    expect((await t.call("GET", "/api/v1/stats", { token: theirs.key })).status).toBe(200);
  });

  it("stops a key when its owner's plan loses API access, and when the owner is deactivated", async () => {
    const u = await userOn("pro");
    const { key } = await createKey(u.token);
    await t.setTier(u.user.id, "premium");
    expect(await t.call("GET", "/api/v1/stats", { token: key })).toMatchObject({
      status: 403,
      body: { detail: m.planLacksAccess },
    });
    await t.rows.auth.updateUser(u.user.id, { subscription_tier: "pro", is_active: false });
    expect((await t.call("GET", "/api/v1/stats", { token: key })).status).toBe(401);
  });

  it("limits each key to 60 requests a minute, with Retry-After and RateLimit headers", async () => {
    const u = await userOn("pro");
    const { key } = await createKey(u.token);
    const other = await createKey(u.token, "other");
    let last: Awaited<ReturnType<TestApp["call"]>> | undefined;
    for (let i = 0; i < API_RATE_LIMIT_PER_MINUTE; i++) {
      last = await t.call("GET", "/api/v1/sync-jobs", { token: key });
      expect(last.status).toBe(200);
    }
    expect(last?.headers["ratelimit-limit"]).toBe(String(API_RATE_LIMIT_PER_MINUTE));
    expect(last?.headers["ratelimit-remaining"]).toBe("0");
    const limited = await t.call("GET", "/api/v1/sync-jobs", { token: key });
    expect(limited.status).toBe(429);
    expect(limited.body.detail).toMatch(/Rate limit exceeded/);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.headers["ratelimit-remaining"]).toBe("0");
    expect(limited.headers["ratelimit-reset"]).toBe(limited.headers["retry-after"]);
    // Another key of the same user has its own budget; the window resets after a minute.
    expect((await t.call("GET", "/api/v1/sync-jobs", { token: other.key })).status).toBe(200);
    t.clock.advance(60_000);
    const again = await t.call("GET", "/api/v1/sync-jobs", { token: key });
    expect(again.status).toBe(200);
    expect(again.headers["ratelimit-remaining"]).toBe(String(API_RATE_LIMIT_PER_MINUTE - 1));
  });
});
