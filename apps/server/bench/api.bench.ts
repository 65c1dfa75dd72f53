/**
 * `npm run bench:api`: seeds BENCH_POSTS (default 1,000,000) posts and their backups for one
 * user in the configured database, starts an API-only process as `npm run api` does, and drives
 * the dashboard's and the Backups screen's reads at a fixed rate. Prints p50/p99/errors per
 * query and the query plans (EXPLAIN ANALYZE) of the SQL behind each.
 *
 * DATABASE_URL set: a fresh database `keepsake_bench_<random>` is created on that server and
 * dropped afterwards. Unset: the embedded PostgreSQL in a temporary DATA_DIR, removed afterwards.
 * BENCH_RATE (default 200 requests/s), BENCH_SECONDS (default 20) per query,
 * BENCH_MAX_IN_FLIGHT (default 64), BENCH_SEARCH (default "sunset").
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKUPS_PAGE_SIZE } from "@keepsake/contracts";
import pg from "pg";
import { embeddedUrls, stopServer } from "../src/db/embedded.ts";
import { searchCountLimit } from "../src/library/dashboard.service.ts";
import type { ListingRepository, PostFilter } from "../src/library/listing.repository.ts";
import { explainRepository } from "../test/support/explain.ts";
import { seedPosts } from "./api-seed.ts";
import { cpuLine, cpuSnapshot } from "./cpu.ts";
import { percentile, runLoad } from "./load.ts";
import { buildServerIfStale, ROOT, roleCommand } from "./roles.ts";
import { createServerDatabase } from "./server-database.ts";

const env = process.env;
const POSTS = Number(env.BENCH_POSTS ?? 1_000_000);
const RATE = Number(env.BENCH_RATE ?? 200);
const SECONDS = Number(env.BENCH_SECONDS ?? 20);
const MAX_IN_FLIGHT = Number(env.BENCH_MAX_IN_FLIGHT ?? 64);
const SEARCH = env.BENCH_SEARCH ?? "sunset";
const log = (...a: unknown[]) => console.error("[bench]", ...a);

interface Query {
  name: string;
  path: string;
  /** The repository call the service makes for this request. */
  sql: (repo: ListingRepository, userId: string) => Promise<unknown>;
}

/** What the service asks the repository for one page of posts. */
const postsPage = (repo: ListingRepository, f: PostFilter, offset: number) =>
  repo.postsPage(f, 36, offset, searchCountLimit(offset, 36) + 1);

const QUERIES: Query[] = [
  {
    name: "posts: first page",
    path: "/api/sync/posts?limit=36&offset=0",
    sql: (repo, userId) => postsPage(repo, { userId }, 0),
  },
  {
    name: "posts: page 100",
    path: "/api/sync/posts?limit=36&offset=3564",
    sql: (repo, userId) => postsPage(repo, { userId }, 3564),
  },
  {
    name: `posts: search "${SEARCH}"`,
    path: `/api/sync/posts?limit=36&offset=0&search=${encodeURIComponent(SEARCH)}`,
    sql: (repo, userId) => postsPage(repo, { userId, search: SEARCH }, 0),
  },
  {
    name: "posts: videos only",
    path: "/api/sync/posts?limit=36&offset=0&media_type=video",
    sql: (repo, userId) => postsPage(repo, { userId, mediaType: "VIDEO" }, 0),
  },
  {
    name: "backups: all (first page)",
    path: "/api/sync/backups",
    sql: (repo, userId) => repo.backupsPage(userId, {}, BACKUPS_PAGE_SIZE, 0),
  },
];

/** A database of its own for the run: a new one on DATABASE_URL's server, or embedded. */
interface BenchDatabase {
  label: string;
  childEnv: Record<string, string>;
  url(): string;
  drop(): Promise<void>;
}

async function benchDatabase(databaseUrl: string | undefined): Promise<BenchDatabase> {
  if (!databaseUrl) {
    const dataDir = mkdtempSync(join(tmpdir(), "keepsake-bench-api-"));
    return {
      label: "embedded PostgreSQL",
      childEnv: { DATA_DIR: dataDir },
      /** The API process starts the server; this one connects through its socket. */
      url: () => embeddedUrls(dataDir).url,
      drop: async () => {
        await stopServer(join(dataDir, "postgres"));
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const server = await createServerDatabase(databaseUrl);
  const dataDir = mkdtempSync(join(tmpdir(), "keepsake-bench-api-"));
  return {
    label: `PostgreSQL (${new URL(server.url).host}, database ${server.name})`,
    childEnv: { DATABASE_URL: server.url, DATA_DIR: dataDir },
    url: () => server.url,
    drop: async () => {
      await server.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function startApi(childEnv: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  // The API as production runs it: `npm run api` (built JavaScript).
  buildServerIfStale();
  const child = spawn(process.execPath, roleCommand("api"), {
    cwd: ROOT,
    env: {
      ...env,
      ...childEnv,
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      SANDBOX_PORT: "0",
      LOG_LEVEL: "warn",
      JWT_SECRET: randomBytes(32).toString("hex"),
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d) => {
      out += String(d);
      const m = /running at (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: (m[1] as string).replace("localhost", "127.0.0.1") });
    });
    child.once("exit", (code) => reject(new Error(`the API process exited (${code}): ${out}`)));
  });
}

async function json<T>(url: string, init: RequestInit): Promise<T> {
  const res = await fetch(url, {
    ...init,
    headers: { "content-type": "application/json", ...init.headers },
  });
  const body = await res.json();
  if (!res.ok)
    throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body as T;
}

const ms = (n: number | null) => (n === null ? "-" : n.toFixed(1));
const pad = (s: string | number, n: number) => String(s).padStart(n);

async function main() {
  // Only the server's URL is read here (the API process gets its own secrets).
  const database = await benchDatabase(process.env.DATABASE_URL?.trim() || undefined);
  let api: ChildProcess | null = null;
  let pool: pg.Pool | null = null;
  try {
    log(`starting an API process on ${database.label}`);
    const started = await startApi(database.childEnv);
    api = started.child;
    const base = started.url;
    pool = new pg.Pool({ connectionString: database.url(), max: 4 });
    const version = (await pool.query<{ v: string }>("SELECT version() AS v")).rows[0]?.v.split(
      " on ",
    )[0];

    const email = `bench.${Date.now()}@example.com`;
    const password = "Passw0rdOk";
    const user = await json<{ id: string }>(`${base}/api/auth/register`, {
      method: "POST",
      body: JSON.stringify({ full_name: "Bench User", email, password }),
    });
    const { access_token: token } = await json<{ access_token: string }>(`${base}/api/auth/login`, {
      method: "POST",
      body: JSON.stringify({ email, password }),
    });
    await pool.query("UPDATE users SET subscription_tier = 'pro' WHERE id = $1", [user.id]);

    log(`seeding ${POSTS.toLocaleString("en-US")} posts`);
    const seeded = await seedPosts(pool, user.id, POSTS, new Date(), (n) =>
      log(`  ${n.toLocaleString("en-US")} posts`),
    );
    log(`seeded in ${seeded.seconds.toFixed(1)} s`);

    const headers = { authorization: `Bearer ${token}` };
    const results = [];
    for (const q of QUERIES) {
      log(`${q.name}: warm-up, then ${RATE} req/s for ${SECONDS} s`);
      const load = { url: base + q.path, headers, maxInFlight: MAX_IN_FLIGHT, timeoutMs: 10_000 };
      await runLoad({ ...load, rate: Math.min(RATE, 50), seconds: 1 });
      const pids = [api.pid as number];
      const before = cpuSnapshot(pids);
      const r = await runLoad({ ...load, rate: RATE, seconds: SECONDS });
      results.push({ q, r, cpu: cpuLine(before, cpuSnapshot(pids), "API", "load generator") });
    }
    const rssKb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${api.pid}/status`, "utf8"))?.[1];

    const lines = [
      `Keepsake API benchmark: ${database.label}, server ${version}`,
      `  ${seeded.posts.toLocaleString("en-US")} posts and ${seeded.backups.toLocaleString("en-US")} backups for one user (seeded in ${seeded.seconds.toFixed(1)} s)`,
      `  ${RATE} requests/s for ${SECONDS} s per query over loopback, at most ${MAX_IN_FLIGHT} in flight; API in its own process (peak RSS ${rssKb ? (Number(rssKb) / 1024).toFixed(0) : "?"} MiB)`,
      "",
      `${"query".padEnd(28)} ${pad("sent", 6)} ${pad("ok", 6)} ${pad("errors", 6)} ${pad("p50 ms", 8)} ${pad("p99 ms", 8)} ${pad("max ms", 8)}`,
    ];
    for (const { q, r } of results) {
      lines.push(
        `${q.name.padEnd(28)} ${pad(r.sent, 6)} ${pad(r.ok, 6)} ${pad(r.errors, 6)} ${pad(ms(percentile(r.latencies, 50)), 8)} ${pad(ms(percentile(r.latencies, 99)), 8)} ${pad(ms(r.latencies.at(-1) ?? null), 8)}${r.errors ? `  ${JSON.stringify(r.errorKinds)}` : ""}`,
      );
    }
    lines.push("", "CPU during each query's load (cores; 1.00 = one core fully busy):");
    for (const { q, cpu } of results) lines.push(`  ${q.name.padEnd(28)} ${cpu}`);
    lines.push("", "Query plans (EXPLAIN ANALYZE of the SQL behind each request):");
    for (const q of QUERIES) {
      const plans = await explainRepository(pool, (repo) => q.sql(repo, user.id), {
        analyze: true,
      });
      lines.push("", `== ${q.name}`);
      for (const p of plans) lines.push(`-- ${p.sql}`, p.text ?? "");
    }
    console.log(lines.join("\n"));
  } finally {
    await pool?.end();
    if (api && api.exitCode === null) {
      const exited = new Promise((r) => api?.once("exit", r));
      api.kill("SIGTERM");
      await exited;
    }
    await database.drop();
  }
}

await main();
process.exit(0);
