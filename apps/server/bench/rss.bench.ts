/**
 * `npm run bench:rss`: the memory footprint of each way Keepsake runs — `npm start` (every
 * role, embedded database, sandbox), and the API-only and worker-only roles against the
 * PostgreSQL server of DATABASE_URL (a fresh database, dropped afterwards; provider
 * credentials set, so no sandbox runs in them, as in production), each both as `npm run api` /
 * `npm run worker` run it (the node command of those package.json scripts: built JavaScript)
 * and from the TypeScript sources. For each: seconds to
 * ready, RSS 10 s after ready and once idle (BENCH_IDLE_SECONDS after ready, default 30: V8
 * returns the heap it grew while starting some seconds after it sees the process idle), and
 * the peak RSS (VmHWM)
 * after BENCH_LOAD_SECONDS (default 5) of 100 requests/s to the API (for the roles that serve it).
 * For the roles on the PostgreSQL server, also the transactions per second the idle process
 * runs there between those two readings (the job queue's polling: `pg_stat_database`).
 * BENCH_ONLY measures only the runs whose name contains it (e.g. `BENCH_ONLY="npm start"`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { runLoad } from "./load.ts";
import { buildServerIfStale, ROOT, roleCommand, roleEnv } from "./roles.ts";
import { createServerDatabase } from "./server-database.ts";

const env = process.env;
const IDLE_SECONDS = Number(env.BENCH_IDLE_SECONDS ?? 30);
/** The RSS is also shown this many seconds after ready, before V8 has settled. */
const EARLY_SECONDS = Math.min(10, IDLE_SECONDS);
const LOAD_SECONDS = Number(env.BENCH_LOAD_SECONDS ?? 5);
const log = (...a: unknown[]) => console.error("[bench]", ...a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** VmRSS and VmHWM of a process, MiB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

const LIVE_CREDENTIALS = {
  INSTAGRAM_CLIENT_ID: "bench",
  INSTAGRAM_CLIENT_SECRET: "bench",
  FACEBOOK_APP_ID: "bench",
  FACEBOOK_APP_SECRET: "bench",
  GOOGLE_CLIENT_ID: "bench",
  GOOGLE_CLIENT_SECRET: "bench",
};

interface Run {
  name: string;
  args: string[];
  env: Record<string, string>;
  serves: boolean;
  /** The transactions committed or rolled back in the run's database so far (server runs). */
  transactions?: () => Promise<number>;
}

/** Transactions of database `name` on the server, as the statistics collector has them. */
async function transactionsOf(serverUrl: string, name: string): Promise<number> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: string }>(
      "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1",
      [name],
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

async function measure(run: Run) {
  const dataDir = mkdtempSync(join(tmpdir(), "keepsake-rss-"));
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, run.args, {
    cwd: ROOT,
    env: {
      ...env,
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      SANDBOX_PORT: "0",
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
      JWT_SECRET: randomBytes(32).toString("hex"),
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      ...run.env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const url = await new Promise<string | null>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (d) => {
        out += String(d);
        const m = /is running(?: at (http:\/\/\S+))?/.exec(out);
        if (m) resolve(m[1] ? m[1].replace("localhost", "127.0.0.1") : null);
      });
      child.once("exit", (code) => reject(new Error(`${run.name} exited (${code}): ${out}`)));
    });
    const ready = (performance.now() - t0) / 1000;
    // V8 gives back the heap it grew while starting once it sees the process idle (its memory
    // reducer), some seconds after start: the RSS early, and once idle.
    await sleep(EARLY_SECONDS * 1000);
    const early = memory(child.pid as number).rss;
    const tx0 = await run.transactions?.();
    await sleep((IDLE_SECONDS - EARLY_SECONDS) * 1000);
    const idle = memory(child.pid as number);
    const tx1 = await run.transactions?.();
    const idleTps =
      tx0 !== undefined && tx1 !== undefined ? (tx1 - tx0) / (IDLE_SECONDS - EARLY_SECONDS) : null;
    if (run.serves && url) {
      const email = `rss.${Date.now()}@example.com`;
      const body = JSON.stringify({ full_name: "Rss Bench", email, password: "Passw0rdOk" });
      const headers = { "content-type": "application/json" };
      await fetch(`${url}/api/auth/register`, { method: "POST", headers, body });
      const login = await fetch(`${url}/api/auth/login`, {
        method: "POST",
        headers,
        body: JSON.stringify({ email, password: "Passw0rdOk" }),
      });
      const { access_token } = (await login.json()) as { access_token: string };
      await runLoad({
        url: `${url}/api/sync/posts?limit=36`,
        headers: { authorization: `Bearer ${access_token}` },
        rate: 100,
        seconds: LOAD_SECONDS,
        maxInFlight: 64,
        timeoutMs: 10_000,
      });
    }
    const after = memory(child.pid as number);
    return { name: run.name, ready, early, idle: idle.rss, peak: after.peak, idleTps };
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await Promise.race([exited, sleep(10_000)]);
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const server = env.DATABASE_URL;
  if (!server) throw new Error("Set DATABASE_URL to a PostgreSQL server for the role runs.");
  const db = await createServerDatabase(server, "keepsake_rss");
  const database = { DATABASE_URL: db.url, ...LIVE_CREDENTIALS };
  const transactions = () => transactionsOf(server, db.name);
  buildServerIfStale();
  const runs: Run[] = [
    // npm start on the embedded database: no DATABASE_URL.
    {
      name: "npm start (embedded)",
      args: roleCommand("start"),
      env: { ...roleEnv("start"), DATABASE_URL: "" },
      serves: true,
    },
  ];
  for (const role of ["api", "worker"] as const) {
    const serves = role === "api";
    runs.push({
      name: `npm run ${role}`,
      args: roleCommand(role),
      env: { ...roleEnv(role), ...database },
      serves,
      transactions,
    });
    runs.push({
      name: `${role} (TypeScript)`,
      args: ["apps/server/src/main.ts", role],
      env: database,
      serves,
      transactions,
    });
  }
  // BENCH_ONLY: measure only the runs whose name contains it (e.g. "npm start").
  const only = env.BENCH_ONLY;
  const results = [];
  try {
    for (const run of runs.filter((r) => !only || r.name.includes(only))) {
      log(`measuring ${run.name}`);
      results.push(await measure(run));
    }
  } finally {
    await db.drop();
  }
  const lines = [
    `Keepsake process footprint (Node ${process.version}; RSS ${EARLY_SECONDS} s after ready, and idle = RSS ${IDLE_SECONDS} s after ready; peak = VmHWM after ${LOAD_SECONDS} s of 100 req/s to /api/sync/posts where the role serves the API; idle tx/s = transactions per second in its database between the two RSS readings)`,
    `${"process".padEnd(24)} ${"ready s".padStart(8)} ${`${EARLY_SECONDS} s MiB`.padStart(9)} ${"idle MiB".padStart(9)} ${"peak MiB".padStart(9)} ${"idle tx/s".padStart(10)}`,
  ];
  for (const r of results)
    lines.push(
      `${r.name.padEnd(24)} ${r.ready.toFixed(2).padStart(8)} ${r.early.toFixed(0).padStart(9)} ${r.idle.toFixed(0).padStart(9)} ${r.peak.toFixed(0).padStart(9)} ${(r.idleTps === null ? "-" : r.idleTps.toFixed(1)).padStart(10)}`,
    );
  console.log(lines.join("\n"));
}

await main();
process.exit(0);
