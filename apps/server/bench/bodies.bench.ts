/**
 * `npm run bench:bodies` (issue 35): request budgets. Starts an API-only process as `npm run api`
 * does (loopback only) on a fresh database of `DATABASE_URL`'s (or `TEST_DATABASE_URL`'s)
 * PostgreSQL server, dropped afterwards, and sends three concurrent maximal bodies to each route
 * class — every route with its own limit, the import plan, the import's streamed upload, an
 * unknown route, and bodies announced far over any limit — as an owner and as a caller who is not.
 * Prints, per case, the status answered, the time to the last of the three answers and the API's
 * RSS growth (its peak during the case less its RSS before; /proc's VmHWM is reset per case),
 * status 0 where the server closed the connection (after its 413) before the client read the answer,
 * min/median/max of BENCH_RUNS runs (default 3); BENCH_ONLY="import plan" runs only the cases
 * whose name contains it. Target: answered within 3 s, growth < 150 MiB.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { IMPORT_PLAN_MAX_BYTES } from "@keepsake/contracts/import";
import pg from "pg";
import { BODY_LIMITS } from "../src/http/body-limits.ts";
import { maximalPlan } from "./plan-body.ts";
import { buildServerIfStale, ROOT, roleCommand } from "./roles.ts";
import { createServerDatabase } from "./server-database.ts";

const env = process.env;
const RUNS = Number(env.BENCH_RUNS ?? 3);
const DEFAULT_LIMIT = 16 * 1024;
/** What the attack of issue 35 sent: 39 MB, and a body announced at 64 MiB. */
const HUGE = 64 * 1024 * 1024;
const log = (...a: unknown[]) => console.error("[bench]", ...a);
const MiB = 1024 * 1024;

interface Sent {
  status: number;
  ms: number;
}

/**
 * One request: `length` bytes announced, `body` repeated (or cut) to fill them, written as the
 * socket takes it; stops writing once the answer comes. Answers the status and the time to it.
 */
function send(
  base: URL,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  length: number,
): Promise<Sent> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        path,
        method,
        headers: { ...headers, "content-length": String(length) },
      },
      (res) => {
        answered = true;
        const ms = performance.now() - t0;
        res.resume();
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, ms });
          req.destroy();
        });
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (answered) return;
      // The server answered (413) and closed the connection while the body was still being
      // written: the refusal is counted when the connection closed (status 0).
      if (err.code === "EPIPE" || err.code === "ECONNRESET") {
        answered = true;
        resolve({ status: 0, ms: performance.now() - t0 });
      } else reject(err);
    });
    (async () => {
      // The body, then spaces up to the announced length, as fast as the socket takes them.
      const pad = Buffer.alloc(Math.min(MiB, length), 0x20);
      let sent = 0;
      while (sent < length && !answered && !req.destroyed) {
        const piece =
          sent < body.length
            ? body.subarray(sent, Math.min(body.length, sent + MiB))
            : pad.subarray(0, Math.min(pad.length, length - sent));
        sent += piece.length;
        if (!req.write(piece)) await new Promise((r) => req.once("drain", r));
      }
      if (!answered && !req.destroyed) req.end();
    })().catch(() => {});
  });
}

function rssKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0);
}

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Bytes announced (and sent, unless the answer comes first). */
  length: number;
}

interface Case {
  name: string;
  /** The three requests sent at once. */
  requests: Req[];
}

async function runCase(base: URL, pid: number, c: Case) {
  const results: { status: string; ms: number; growthMiB: number }[] = [];
  for (let run = 0; run < RUNS; run++) {
    await new Promise((r) => setTimeout(r, 500));
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    const before = rssKiB(pid, "VmRSS");
    const sent = await Promise.all(
      c.requests.map((q) => send(base, q.method, q.path, q.headers, q.body, q.length)),
    );
    const peak = rssKiB(pid, "VmHWM");
    results.push({
      status: [...new Set(sent.map((x) => x.status))].sort().join("/"),
      ms: Math.max(...sent.map((x) => x.ms)),
      growthMiB: (peak - before) / 1024,
    });
  }
  return results;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0] ?? 0, median: s[Math.floor(s.length / 2)] ?? 0, max: s.at(-1) ?? 0 };
};

function startApi(childEnv: Record<string, string>): Promise<{ child: ChildProcess; url: URL }> {
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
      CONTACT_MAX_PER_HOUR: "1000",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let ready = false;
    child.stdout?.on("data", (d) => {
      // After start-up, what the API logs (warnings and errors) goes to stderr.
      if (ready) return void process.stderr.write(d);
      out += String(d);
      const m = /running at (http:\/\/\S+)/.exec(out);
      if (m) {
        ready = true;
        resolve({ child, url: new URL((m[1] as string).replace("localhost", "127.0.0.1")) });
      }
    });
    child.once("exit", (code) => reject(new Error(`the API process exited (${code}): ${out}`)));
  });
}

async function json<T>(base: URL, path: string, body: unknown): Promise<T> {
  const res = await fetch(new URL(path, base), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer as T;
}

/** A user signed in, on Pro, with one Instagram account (a row: no provider is called). */
async function user(base: URL, pool: pg.Pool, n: number) {
  const email = `bench.bodies.${n}.${Date.now()}@example.com`;
  const password = "Passw0rdOk";
  const u = await json<{ id: string }>(base, "/api/auth/register", {
    full_name: `Bench ${n}`,
    email,
    password,
  });
  const { access_token } = await json<{ access_token: string }>(base, "/api/auth/login", {
    email,
    password,
  });
  await pool.query("UPDATE users SET subscription_tier = 'pro', is_admin = $2 WHERE id = $1", [
    u.id,
    n === 0,
  ]);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO instagram_accounts
       (user_id, instagram_user_id, connected_via, username, access_token_encrypted, token_issued_at)
     VALUES ($1, $2, 'instagram', $3, 'not-a-token', now()) RETURNING id`,
    [u.id, `1784149999999${String(n).padStart(4, "0")}`, `bench.bodies${n}`],
  );
  const accountId = rows[0]?.id as string;
  const item = await pool.query<{ id: string }>(
    `INSERT INTO import_items (user_id, account_id, item_key, kind, taken_at, status, created_at, updated_at)
     VALUES ($1, $2, 'bench', 'story', now(), 'pending', now(), now()) RETURNING id`,
    [u.id, accountId],
  );
  const itemId = item.rows[0]?.id as string;
  await pool.query(
    `INSERT INTO import_files (item_id, file_key, position, uri, name, media_type, updated_at)
     VALUES ($1, 'f0', 0, 'media/stories/x.jpg', 'x.jpg', 'IMAGE', now())`,
    [itemId],
  );
  return { token: access_token, accountId, itemId, username: `bench.bodies${n}` };
}

async function main() {
  const serverUrl = env.DATABASE_URL ?? env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error("set DATABASE_URL or TEST_DATABASE_URL (a PostgreSQL server)");
  const database = await createServerDatabase(serverUrl, "keepsake_bench_bodies");
  let api: ChildProcess | null = null;
  let pool: pg.Pool | null = null;
  try {
    const started = await startApi({ DATABASE_URL: database.url });
    api = started.child;
    const base = started.url;
    const pid = api.pid as number;
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const users = [];
    for (let n = 0; n < 4; n++) users.push(await user(base, pool, n));
    const [admin, a, b, c] = users as [
      (typeof users)[0],
      (typeof users)[0],
      (typeof users)[0],
      (typeof users)[0],
    ];
    const bearer = (u: { token: string }) => ({
      "content-type": "application/json",
      authorization: `Bearer ${u.token}`,
    });
    const jsonOnly = { "content-type": "application/json" };
    const three = (q: Req) => [q, q, q];
    const padJson = (size: number, prefix: string, suffix: string) =>
      Buffer.from(prefix + " ".repeat(size - prefix.length - suffix.length) + suffix);
    const post = (path: string, headers: Record<string, string>, body: Buffer, length?: number) =>
      ({ method: "POST", path, headers, body, length: length ?? body.length }) as Req;
    const huge = (method: string, path: string, headers: Record<string, string>) =>
      three({ method, path, headers, body: Buffer.alloc(0), length: HUGE });
    const contact = (() => {
      const head = '{"name":"Ann","email":"ann@example.com","subject":"Hi","message":"';
      return Buffer.from(`${head}${"\\u00e9".repeat(5000)}"}`);
    })();
    const reply = `/api/admin/messages/${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}/reply`;
    const replyBody = padJson(BODY_LIMITS.adminReply, '{"body":"x"', "}");
    const planOf = (u: typeof a) => `/api/import/accounts/${u.accountId}/plan`;
    const upload = `/api/import/items/${a.itemId}/files/f0`;
    const octets = (u: typeof a) => ({ ...bearer(u), "content-type": "application/octet-stream" });
    log(`building maximal import plans (${IMPORT_PLAN_MAX_BYTES / MiB} MiB)`);
    const plans = [a, b, c].map((u) => maximalPlan(u.username, IMPORT_PLAN_MAX_BYTES));
    const [planA, planB, planC] = plans as [Buffer, Buffer, Buffer];
    const cases: Case[] = [
      {
        name: "sign-in, 16 KiB (the default)",
        requests: three(
          post(
            "/api/auth/login",
            jsonOnly,
            padJson(DEFAULT_LIMIT, '{"email":"a@b.co","password":"x"', "}"),
          ),
        ),
      },
      {
        name: `contact, ${(contact.length / 1024).toFixed(0)} KiB of 64`,
        requests: three(post("/api/contact", jsonOnly, contact)),
      },
      {
        name: "admin reply, 128 KiB, admin",
        requests: three(post(reply, bearer(admin), replyBody)),
      },
      {
        name: "admin reply, 128 KiB, not an admin",
        requests: three(post(reply, bearer(a), replyBody)),
      },
      {
        name: "Stripe webhook, 1 MiB, bad signature",
        requests: three(
          post(
            "/api/webhooks/stripe",
            { ...jsonOnly, "stripe-signature": "t=1,v1=00" },
            padJson(BODY_LIMITS.stripeWebhook, '{"id":"evt_x"', "}"),
          ),
        ),
      },
      {
        name: `import plan, ${IMPORT_PLAN_MAX_BYTES / MiB} MiB, three owners`,
        requests: [
          post(planOf(a), bearer(a), planA),
          post(planOf(b), bearer(b), planB),
          post(planOf(c), bearer(c), planC),
        ],
      },
      {
        name: `import plan, ${IMPORT_PLAN_MAX_BYTES / MiB} MiB, one owner x3`,
        requests: three(post(planOf(a), bearer(a), planA)),
      },
      { name: "import plan, 64 MiB, not the owner", requests: huge("POST", planOf(a), bearer(b)) },
      { name: "import plan, 64 MiB, owner", requests: huge("POST", planOf(a), bearer(a)) },
      { name: "import upload, 64 MiB, owner, no Drive", requests: huge("PUT", upload, octets(a)) },
      { name: "import upload, 64 MiB, not the owner", requests: huge("PUT", upload, octets(b)) },
      { name: "sign-up, 64 MiB", requests: huge("POST", "/api/auth/register", jsonOnly) },
      { name: "unknown route, 64 MiB", requests: huge("POST", "/api/nowhere", jsonOnly) },
    ];
    const lines = [
      `Keepsake request budgets: ${RUNS} runs of three concurrent requests per case, API-only process (node ${roleCommand("api").join(" ")}) on loopback`,
      "",
      `${"case".padEnd(40)} ${"status".padStart(11)}   ${"answered in ms min/med/max".padStart(26)}   ${"RSS growth MiB min/med/max".padStart(26)}`,
    ];
    for (const k of cases.filter((x) => x.name.includes(env.BENCH_ONLY ?? ""))) {
      log(k.name);
      const results = await runCase(base, pid, k);
      const t = stats(results.map((r) => r.ms));
      const g = stats(results.map((r) => r.growthMiB));
      const status = [...new Set(results.map((r) => r.status))].join(",");
      const f = (n: number) => n.toFixed(0);
      const f1 = (n: number) => n.toFixed(1);
      log(JSON.stringify(results));
      lines.push(
        `${k.name.padEnd(40)} ${status.padStart(11)}   ${`${f(t.min)} / ${f(t.median)} / ${f(t.max)}`.padStart(26)}   ${`${f1(g.min)} / ${f1(g.median)} / ${f1(g.max)}`.padStart(26)}`,
      );
    }
    lines.push(
      "",
      `API peak RSS over the whole run: ${(rssKiB(pid, "VmHWM") / 1024).toFixed(0)} MiB`,
    );
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
