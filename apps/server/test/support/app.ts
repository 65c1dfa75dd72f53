import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SubscriptionTier as Tier } from "@keepsake/contracts";
import type { FastifyInstance, InjectOptions } from "fastify";
import { loadConfig, type ProviderSettings } from "../../src/config.ts";
import { type AppContext, type ContextDeps, createContext } from "../../src/context.ts";
import { connectDatabase } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { buildApp } from "../../src/http/app.ts";
import { loadSecrets } from "../../src/lib/secrets.ts";
import { TestClock } from "./clock.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { type RowFactories, rowFactories } from "./factories.ts";

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  clock: TestClock;
  /** Rows set up behind the product's back, one group per owning area (factories.ts). */
  rows: RowFactories;
  /** Where the test's database is, for other processes (a schema on a real server). */
  database: { url: string; schema?: string };
  close(): Promise<void>;
  /** How many SQL statements the app has run through `ctx.db` so far (the queue's not included). */
  statements(): number;
  /** Puts a user on a plan directly (as a Stripe webhook would). */
  setTier(userId: string, tier: Tier): Promise<void>;
  /** Registers and signs in a new user; `tier` puts them on a plan directly. */
  signUp(
    overrides?: Partial<{ full_name: string; email: string; password: string; tier: Tier }>,
  ): Promise<{
    token: string;
    user: { id: string; email: string };
    password: string;
  }>;
  call(
    method: InjectOptions["method"],
    url: string,
    opts?: {
      token?: string;
      body?: unknown;
      headers?: Record<string, string>;
      /** The client address the request comes from (default 127.0.0.1). */
      ip?: string;
    },
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
}

let counter = 0;

export async function createTestApp(
  env: Record<string, string> = {},
  options: {
    jobs?: ContextDeps["jobs"];
    /** Provider base URLs and credentials, e.g. `sandboxProviders(sandbox.url, SANDBOX_CREDENTIALS)`. */
    providers?: ProviderSettings;
    /** A built SPA folder to serve. */
    webDist?: string;
    /** Backup engine tunables (short waits, small chunks). */
    engineSettings?: ContextDeps["engineSettings"];
    /** Receives what services and jobs log. */
    log?: ContextDeps["log"];
    /** A database to use instead of a fresh one (closed with the app). */
    database?: TestDatabase;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const dataDir = mkdtempSync(join(tmpdir(), "keepsake-test-"));
  const loaded = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ...env,
  });
  const config = options.providers ? { ...loaded, providers: options.providers } : loaded;
  const handle = connectDatabase({
    url: database.url,
    max: 5,
    // Only when a test asks: a loaded machine's slow checkouts must not fail the other files.
    ...(env.DATABASE_POOL_TIMEOUT_SECONDS
      ? { checkoutTimeoutMs: config.DATABASE_POOL_TIMEOUT_SECONDS * 1000 }
      : {}),
  });
  await migrate(handle.pool);
  let statements = 0;
  const db = handle.db.withPlugin({
    transformQuery: ({ node }) => node,
    async transformResult({ result }) {
      statements++;
      return result;
    },
  });
  const clock = new TestClock();
  const ctx = createContext({
    config,
    db,
    pool: handle.pool,
    clock,
    secrets: loadSecrets(config),
    databaseUrl: database.url,
    ...(options.jobs ? { jobs: options.jobs } : {}),
    ...(options.engineSettings ? { engineSettings: options.engineSettings } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  await ctx.queue.start();
  const app = await buildApp(ctx, {
    logger: false,
    ...(options.webDist ? { webDist: options.webDist } : {}),
  });

  const call: TestApp["call"] = async (method, url, opts = {}) => {
    const res = await app.inject({
      method,
      url,
      headers: {
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...opts.headers,
      },
      ...(opts.body !== undefined ? { payload: opts.body as InjectOptions["payload"] } : {}),
      ...(opts.ip ? { remoteAddress: opts.ip } : {}),
    });
    let body: unknown = res.body;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch {}
    return { status: res.statusCode, body, headers: res.headers };
  };

  async function setTier(userId: string, tier: Tier) {
    await rows.auth.updateUser(userId, { subscription_tier: tier });
  }
  const rows = rowFactories(ctx.db);

  return {
    app,
    ctx,
    clock,
    rows,
    call,
    database: { url: database.url },
    setTier,
    statements: () => statements,
    async signUp({ tier, ...overrides } = {}) {
      counter += 1;
      const input = {
        full_name: "Test User",
        email: `user${counter}.${Date.now()}@example.com`,
        password: "Passw0rdOk",
        ...overrides,
      };
      // Each from its own client address: registrations are limited per client (issue 35).
      const ip = `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`;
      const reg = await call("POST", "/api/auth/register", { body: input, ip });
      if (reg.status !== 201) throw new Error(`register failed: ${JSON.stringify(reg.body)}`);
      const login = await call("POST", "/api/auth/login", {
        body: { email: input.email, password: input.password },
      });
      if (tier) await setTier(reg.body.id, tier);
      return { token: login.body.access_token, user: reg.body, password: input.password };
    },
    async close() {
      await ctx.queue.stop();
      await app.close();
      await handle.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
