import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";

// Readiness and liveness when the database is busy or does not answer, and what a request does
// when the app's pool has no connection to give (on embedded PGlite and, with TEST_DATABASE_URL,
// on a PostgreSQL server).

let t: TestApp;
let password: string;
let email: string;
beforeAll(async () => {
  t = await createTestApp({ DATABASE_POOL_TIMEOUT_SECONDS: "1", LIVENESS_DATABASE_SECONDS: "2" });
  const user = await t.signUp();
  password = user.password;
  email = user.user.email;
});
afterAll(async () => {
  await t.close();
});

/**
 * A session of its own that locks the migrations table, so the health probe's read waits. It
 * lifts its own turn limit (the embedded server ends a session idle in a transaction after 5 s,
 * which would end the wedge before a busy machine's probe sees it).
 */
async function lockMigrations(): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: t.database.url });
  await client.connect();
  await client.query("SET idle_in_transaction_session_timeout = 0");
  await client.query("BEGIN");
  await client.query(`LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE`);
  return async () => {
    await client.query("ROLLBACK");
    await client.end();
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - start };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("health and a busy database", () => {
  it("is ready while the app's pool is exhausted; sign-in and /me answer 503 with Retry-After, not 500", async () => {
    const { token } = await t.signUp();
    const held = await Promise.all(
      Array.from({ length: t.ctx.pool.options.max ?? 5 }, () => t.ctx.pool.connect()),
    );
    try {
      const ready = await timed(() => t.call("GET", "/api/health/ready"));
      expect(ready.value).toMatchObject({ status: 200, body: { status: "ready" } });
      expect(ready.ms).toBeLessThan(2000);

      const login = await t.call("POST", "/api/auth/login", { body: { email, password } });
      expect(login.status).toBe(503);
      expect(login.headers["retry-after"]).toBe("5");
      expect(login.body.detail).toMatch(/try again/);
      const me = await t.call("GET", "/api/auth/me", { token });
      expect(me.status).toBe(503);
      expect(me.headers["retry-after"]).toBe("5");
    } finally {
      for (const c of held) c.release();
    }
    expect((await t.call("POST", "/api/auth/login", { body: { email, password } })).status).toBe(
      200,
    );
  });

  it("answers readiness 503 within 2 s while the database does not answer, 200 once it does", async () => {
    const unlock = await lockMigrations();
    try {
      const ready = await timed(() => t.call("GET", "/api/health/ready"));
      expect(ready.value).toMatchObject({ status: 503, body: { detail: "Database unavailable" } });
      expect(ready.ms).toBeLessThan(2000);
      // Liveness answers at once meanwhile (one failed probe is no reason to restart).
      const live = await timed(() => t.call("GET", "/api/health/live"));
      expect(live.value).toMatchObject({ status: 200, body: { status: "ok" } });
      expect(live.ms).toBeLessThan(500);
    } finally {
      await unlock();
    }
    expect((await t.call("GET", "/api/health/ready")).status).toBe(200);
  });

  it("keeps liveness up through a brief hiccup", async () => {
    // One probe fails (the lock outlasts its 1.5 s), the next one answers.
    const unlock = await lockMigrations();
    const answers: number[] = [];
    try {
      for (const end = Date.now() + 2500; Date.now() < end; await sleep(200))
        answers.push((await t.call("GET", "/api/health/live")).status);
    } finally {
      await unlock();
    }
    for (const end = Date.now() + 3000; Date.now() < end; await sleep(200))
      answers.push((await t.call("GET", "/api/health/live")).status);
    expect(answers.length).toBeGreaterThan(10);
    expect(answers.every((s) => s === 200)).toBe(true);
  });

  it("fails liveness once the database stays wedged past the limit, and recovers after", async () => {
    const unlock = await lockMigrations();
    let dead: { status: number; body: { detail?: string } } | null = null;
    try {
      for (const end = Date.now() + 20_000; Date.now() < end && !dead; await sleep(200)) {
        const live = await timed(() => t.call("GET", "/api/health/live"));
        expect(live.ms).toBeLessThan(500);
        if (live.value.status !== 200) dead = live.value;
      }
    } finally {
      await unlock();
    }
    expect(dead?.status).toBe(503);
    expect(dead?.body.detail).toMatch(/^The database has not answered for \d+ s/);
    // The next probe answers: alive again.
    let status = 0;
    for (const end = Date.now() + 10_000; Date.now() < end && status !== 200; await sleep(200))
      status = (await t.call("GET", "/api/health/live")).status;
    expect(status).toBe(200);
  }, 45_000);
});
