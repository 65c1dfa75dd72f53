/**
 * `npm run bench:sync`: scheduled syncs of many unchanged accounts against the sandbox with
 * 100 ms added to every provider call, run by Keepsake worker processes of their own.
 *
 * Seeds BENCH_ACCOUNTS (default 2,000) connected accounts (synthetic sandbox accounts, each
 * synced once so nothing is new), then for each worker count in BENCH_WORKERS (default "1,2"):
 *  1. capacity — one scheduler cycle's syncs queued at once (the scheduler spreads them over 10
 *     minutes; queued together they show what the workers can do): syncs per second, Graph calls
 *     and database queries (counted in the worker processes, queue included) per sync. A
 *     worker runs for days; a new one first compiles its hot code and opens its connections, so
 *     BENCH_WARMUP (default 400) syncs run, uncounted, before each cycle. The cycle lasts from
 *     the first sync's start to the last one's end, as the workers recorded them;
 *  2. latency — BENCH_DELAY_SAMPLES (default 200) syncs queued one by one over 10 s (below
 *     capacity): p50 and p99 of the delay between a job being queued and starting.
 * Where the CPU went during the syncs is printed too (the workers, this process with the sandbox,
 * PostgreSQL), since sandbox, database and workers share the machine's cores.
 * Then the Graph budget: BENCH_PACING_ACCOUNTS (default 100) accounts sync while the sandbox
 * reports 30 %, 72 % and 86 % Graph usage; an hour of scheduler ticks (6) then shows how often
 * each level is synced (all, half, none).
 * Last, what an unchanged account's claim costs as its history grows: for each size in
 * BENCH_HISTORY (default "1000,5000,20000" posts, every one backed up), one account's claim
 * (the statement every backup sync ends with) timed over 200 calls, with no post limit (pro,
 * agency) and with premium's.
 * Then the archive's walks (issue 30): for each size in BENCH_WALK_POSTS (default "1000,10000"
 * posts), one account's whole walk of its media list (as the weekly walk and a media_count drop
 * run it): Graph calls, database statements and seconds, and what that costs per account per day.
 * Then the comment reads of opted-in accounts (bench/comment-reads.ts): Graph calls per post read
 * and per account per day at 1,000 and 10,000 posts.
 * BENCH_LATENCY_MS (default 100). TEST_DATABASE_URL: a PostgreSQL server instead of the embedded
 * database (several workers share one database only sensibly on a real server).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { postLimit } from "../src/billing/tier-rules.ts";
import { encryptSecret } from "../src/lib/crypto.ts";
import { syncAccountJob } from "../src/sync/jobs/sync-account.job.ts";
import { syncSchedulerJob } from "../src/sync/jobs/sync-scheduler.job.ts";
import { backupHelpers, requestsByEndpoint } from "../test/support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../test/support/sandbox.ts";
import { commentReadCost } from "./comment-reads.ts";
import { cpuLine, cpuSnapshot } from "./cpu.ts";

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 2000);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? "1,2").split(",").map(Number);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 100);
const DELAY_SAMPLES = Number(process.env.BENCH_DELAY_SAMPLES ?? 200);
const PACING_ACCOUNTS = Number(process.env.BENCH_PACING_ACCOUNTS ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 400);
const HISTORIES = (process.env.BENCH_HISTORY ?? "1000,5000,20000")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
const WALK_POSTS = (process.env.BENCH_WALK_POSTS ?? "1000,10000")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
const WORKER = fileURLToPath(new URL("../test/support/worker-process.ts", import.meta.url));
const secrets = {
  JWT_SECRET: randomBytes(32).toString("hex"),
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};
const log = (...a: unknown[]) => console.error("[bench]", ...a);
const f2 = (n: number) => n.toFixed(2);

interface Worker {
  child: ChildProcess;
  /** Database queries this process has sent so far. */
  queries(): Promise<number>;
}

function startWorker(t: SandboxedApp): Promise<Worker> {
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...process.env,
      ...secrets,
      WORKER_ENGINE: "default",
      WORKER_COUNT_QUERIES: "1",
      WORKER_DATABASE_URL: t.database.url,
      ...(t.database.schema ? { WORKER_SCHEMA: t.database.schema } : {}),
      WORKER_SANDBOX_URL: t.sandbox.url,
      DATA_DIR: `/tmp/keepsake-bench-sync-${process.pid}`,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const waiting: ((n: number) => void)[] = [];
  let ready: () => void;
  const started = new Promise<void>((r) => {
    ready = r;
  });
  child.stdout?.on("data", (d) => {
    for (const line of String(d).split("\n")) {
      if (line.includes("ready")) ready();
      const m = /^queries (\d+)/.exec(line);
      if (m) waiting.shift()?.(Number(m[1]));
    }
  });
  child.on("exit", (c) => {
    if (c) log(`worker exited ${c}`);
  });
  return started.then(() => ({
    child,
    queries: () =>
      new Promise<number>((resolve) => {
        waiting.push(resolve);
        child.kill("SIGUSR2");
      }),
  }));
}

type SandboxAccount = { id: string; user_id: string; username: string; access_token: string };

/** N synthetic sandbox accounts, each connected to its own pro user and synced once. */
async function seed(t: SandboxedApp, h: ReturnType<typeof backupHelpers>) {
  const { accounts } = await h.control<{ accounts: SandboxAccount[] }>("/instagram/accounts", {
    body: { count: ACCOUNTS, posts: 12 },
  });
  const ids = await insertAccounts(t, accounts);
  // The first sync of each (no latency yet), then everything counts as backed up.
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < ids.length; i = next++) await refreshSync(t, ids[i]!);
    }),
  );
  await sql`INSERT INTO backups (post_id, user_id, account_id, status)
            SELECT id, user_id, account_id, 'completed' FROM posts
            ON CONFLICT (post_id) DO NOTHING`.execute(t.ctx.db);
  return ids;
}

/** One sync that lists the account's posts (no backup), run in this process. */
async function refreshSync(t: SandboxedApp, accountId: string) {
  const account = await t.ctx.accountsRepo.accountWithOwner(accountId);
  const job = await t.ctx.syncRepos.runs.insertSyncJob({
    user_id: account!.user_id,
    account_id: account!.id,
    job_type: "manual",
    mode: "refresh",
    now: t.clock.now(),
  });
  return t.ctx.syncEngine.run(
    { accountId: account!.id, syncJobId: job!.id, kind: "manual", mode: "refresh" },
    { retryCount: 0, retryLimit: 0 },
  );
}

/**
 * The archive's whole walk of one account of `posts` posts (issue 30): the weekly walk, and
 * what a media_count drop starts (then once more a day later to confirm what it missed).
 */
async function walkCost(t: SandboxedApp, h: ReturnType<typeof backupHelpers>, posts: number) {
  const { accounts } = await h.control<{ accounts: SandboxAccount[] }>("/instagram/accounts", {
    body: { count: 1, posts },
  });
  const [accountId] = await insertAccounts(t, accounts);
  await refreshSync(t, accountId!); // the first sync walks the whole history once
  await sql`UPDATE archive_walks SET last_walk_at = last_walk_at - interval '8 days'
             WHERE account_id = ${accountId}`.execute(t.ctx.db);
  const calls0 = await h.calls();
  const statements0 = t.statements();
  const t0 = performance.now();
  await refreshSync(t, accountId!);
  const seconds = (performance.now() - t0) / 1000;
  const calls1 = await h.calls();
  const graph = Object.entries(calls1)
    .filter(([k]) => k.startsWith("ig."))
    .reduce((n, [k, v]) => n + v - (calls0[k] ?? 0), 0);
  const statements = t.statements() - statements0;
  const walked = await t.ctx.db
    .selectFrom("archive_walks")
    .select("last_walk_at")
    .where("account_id", "=", accountId!)
    .executeTakeFirstOrThrow();
  if (walked.last_walk_at.getTime() < t.clock.now().getTime() - 86_400_000)
    throw new Error("the bench's walk did not run");
  const perDay = graph / 7;
  return [
    `  ${posts.toLocaleString("en-US")} posts: a walk is ${graph} Graph calls (pages of ${t.ctx.engine.pageSize}, stories included), ${statements} DB statements, ${f2(seconds)} s`,
    `    weekly walk: ${f2(perDay)} Graph calls per account per day; a media_count drop adds ${graph} that day and ${graph} more for the confirming walk a day later (plus at most 26 reads by id)`,
  ];
}

async function insertAccounts(t: SandboxedApp, accounts: SandboxAccount[]) {
  const key = Buffer.from(secrets.ENCRYPTION_KEY, "hex");
  const now = new Date();
  const ids: string[] = [];
  for (let i = 0; i < accounts.length; i += 500) {
    const batch = accounts.slice(i, i + 500);
    const users = await t.ctx.db
      .insertInto("users")
      .values(
        batch.map((a) => ({
          email: `${a.username}@bench.example`,
          password_hash: "x",
          subscription_tier: "pro" as const,
        })),
      )
      .returning("id")
      .execute();
    const rows = await t.ctx.db
      .insertInto("instagram_accounts")
      .values(
        batch.map((a, j) => ({
          user_id: users[j]!.id,
          instagram_user_id: a.user_id,
          connected_via: "instagram" as const,
          username: a.username,
          account_type: "BUSINESS",
          access_token_encrypted: encryptSecret(key, a.access_token),
          token_issued_at: now,
          token_expires_at: new Date(now.getTime() + 50 * 86_400_000),
        })),
      )
      .returning(["id", "user_id"])
      .execute();
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

async function runCycle(
  t: SandboxedApp,
  h: ReturnType<typeof backupHelpers>,
  workers: Worker[],
  ids: string[],
) {
  const boss = t.ctx.queueSchema;
  const before = await Promise.all(workers.map((w) => w.queries()));
  await h.control("/calls", { method: "DELETE" });
  const marker = new Date();
  const pids = workers.map((w) => w.child.pid as number);
  const cpu0 = cpuSnapshot(pids);
  await syncAll(t, ids, "backup", marker);
  const cpu = cpuLine(cpu0, cpuSnapshot(pids), "worker processes");
  // The cycle lasts from the first run's start to the last one's end, as the workers recorded
  // them: neither the bench's queueing nor its poll (every 200 ms) counts.
  const span = await t.ctx.db
    .selectFrom("sync_jobs")
    .select((eb) => [eb.fn.min("started_at").as("first"), eb.fn.max("completed_at").as("last")])
    .where("started_at", ">=", marker)
    .executeTakeFirstOrThrow();
  const seconds = (Number(span.last) - Number(span.first)) / 1000;
  const after = await Promise.all(workers.map((w) => w.queries()));
  const calls = await h.calls();
  const failed = await sql<{ n: string; why: string }>`
    SELECT count(*) AS n, status || ': ' || coalesce(error_message, '') AS why
      FROM sync_jobs WHERE started_at >= ${marker} AND status <> 'completed'
     GROUP BY 2 ORDER BY 1 DESC`.execute(t.ctx.db);
  const queries = after.reduce((n, q, i) => n + q - (before[i] as number), 0);
  const graph = requestsByEndpoint(calls, "ig.", "fb.");
  const drive = requestsByEndpoint(calls, "drive.");

  // Latency: syncs queued one at a time over 10 s (below capacity): queued → started.
  const sample = ids.slice(0, Math.min(DELAY_SAMPLES, ids.length));
  const since = new Date();
  const roundKey = newRoundKeys();
  for (const accountId of sample) {
    await t.ctx.queue.send(
      syncAccountJob,
      { accountId, kind: "scheduled", mode: "backup" },
      { singletonKey: roundKey(accountId) },
    );
    await new Promise((r) => setTimeout(r, 10_000 / sample.length));
  }
  let delays: number[] = [];
  for (;;) {
    const r = await sql<{ d: number }>`
      SELECT extract(epoch FROM (started_on - created_on)) * 1000 AS d
      FROM ${sql.table(`${boss}.job`)}
      WHERE name = 'sync-account' AND created_on >= ${since} AND started_on IS NOT NULL`.execute(
      t.ctx.db,
    );
    delays = r.rows.map((x) => Number(x.d)).sort((a, b) => a - b);
    if (delays.length >= sample.length) break;
    await new Promise((res) => setTimeout(res, 250));
  }
  const p = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))] ?? 0;
  return {
    seconds,
    failed: failed.rows.reduce((n, r) => n + Number(r.n), 0),
    failures: failed.rows.map((r) => `${r.n} ${r.why}`).join("; "),
    perSecond: ids.length / seconds,
    graphPerSync: graph.total / ids.length,
    graphLines: graph.lines,
    drive: drive.total,
    queriesPerSync: queries / ids.length,
    p50: p(0.5),
    p99: p(0.99),
    cpu,
  };
}

/**
 * The singleton keys of one round of queued syncs: the scheduler's key plus the round's number.
 * pg-boss's queue monitor records which keys were active and its fetch skips those until its
 * next reading (a minute or more); the bench re-queues the same accounts seconds after syncing
 * them, which the scheduler never does (10 minutes apart), and with one key for every round
 * some syncs waited minutes for no reason the product has.
 */
let rounds = 0;
function newRoundKeys(): (accountId: string) => string {
  const round = ++rounds;
  return (accountId) => `sync:${accountId}:scheduled:${round}`;
}

/** Queues a scheduled sync of every account and waits until each has ended (since `marker`). */
async function syncAll(t: SandboxedApp, ids: string[], mode: "backup" | "refresh", marker: Date) {
  const roundKey = newRoundKeys();
  await t.ctx.queue.insert(
    syncAccountJob,
    ids.map((accountId) => ({
      data: { accountId, kind: "scheduled" as const, mode },
      singletonKey: roundKey(accountId),
    })),
  );
  for (;;) {
    const r = await sql<{ n: string }>`
      SELECT count(*) AS n FROM sync_jobs WHERE started_at >= ${marker} AND status <> 'running'`.execute(
      t.ctx.db,
    );
    if (Number(r.rows[0]?.n) >= ids.length) return;
    await new Promise((res) => setTimeout(res, 200));
  }
}

/**
 * The accounts sync (through the workers) while the sandbox reports `percent` Graph usage;
 * then six scheduler ticks, an hour on the app's clock, count how many syncs each gets.
 */
async function pacing(t: SandboxedApp, h: ReturnType<typeof backupHelpers>, ids: string[]) {
  const lines: string[] = [];
  for (const percent of [30, 72, 86]) {
    await h.control("/graph/usage", { body: { app_call_count: percent } });
    const marker = new Date();
    await syncAll(t, ids, "refresh", marker);
    const stored = await t.ctx.db
      .selectFrom("account_sync_state")
      .select((eb) => eb.fn.avg<number>("graph_usage_percent").as("avg"))
      .where("account_id", "in", ids)
      .executeTakeFirst();
    // The readings carry the workers' time: the ticks start from it.
    t.clock.advance(Date.now() - t.clock.now().getTime());
    let queued = 0;
    for (let tick = 0; tick < 6; tick++) {
      const since = new Date();
      await syncSchedulerJob.handler({}, t.ctx, { id: crypto.randomUUID(), retryCount: 0 });
      const r = await sql<{ n: string }>`
        SELECT count(*) AS n FROM ${sql.table(`${t.ctx.queueSchema}.job`)}
         WHERE name = 'sync-account' AND created_on >= ${since}
           AND data->>'accountId' IN (${sql.join(ids)})`.execute(t.ctx.db);
      queued += Number(r.rows[0]?.n);
      await sql`DELETE FROM ${sql.table(`${t.ctx.queueSchema}.job`)}
                 WHERE name = 'sync-account' AND state = 'created'`.execute(t.ctx.db);
      t.clock.advance(10 * 60_000);
    }
    lines.push(
      `  Graph usage ${percent} % (stored: ${Math.round(Number(stored?.avg ?? 0))} %): ${queued} scheduled syncs for ${ids.length} accounts in 6 ticks (${f2(queued / ids.length)} per account per hour)`,
    );
  }
  await h.control("/graph/usage", { body: { app_call_count: null } });
  return lines;
}

/** Milliseconds per claim of one unchanged account with `posts` posts, by plan. */
async function claimByHistory(t: SandboxedApp, posts: number) {
  const { rows } = await sql<{ user_id: string; account_id: string; job_id: string }>`
    WITH u AS (
      INSERT INTO users (email, password_hash, subscription_tier)
      VALUES (${`history-${posts}@bench.example`}, 'x', 'pro') RETURNING id
    ), a AS (
      INSERT INTO instagram_accounts (user_id, instagram_user_id, connected_via, username,
                                      access_token_encrypted, token_issued_at)
      SELECT id, ${`history_${posts}`}, 'instagram', ${`history_${posts}`}, 'x', now() FROM u
      RETURNING id, user_id
    ), j AS (
      INSERT INTO sync_jobs (user_id, account_id, job_type, status)
      SELECT user_id, id, 'manual', 'completed' FROM a RETURNING id
    )
    SELECT a.user_id, a.id AS account_id, j.id AS job_id FROM a, j`.execute(t.ctx.db);
  const { user_id: userId, account_id: accountId, job_id: jobId } = rows[0]!;
  await sql`
    WITH p AS (
      INSERT INTO posts (user_id, account_id, instagram_id, media_type, posted_at)
      SELECT ${userId}, ${accountId}, 'h' || g, 'IMAGE', now() - g * interval '1 hour'
        FROM generate_series(1, ${posts}::int) g
      RETURNING id, user_id, account_id
    )
    INSERT INTO backups (post_id, user_id, account_id, status)
    SELECT id, user_id, account_id, 'completed' FROM p`.execute(t.ctx.db);
  await sql`ANALYZE posts`.execute(t.ctx.db);
  await sql`ANALYZE backups`.execute(t.ctx.db);
  const time = async (limit: number | null) => {
    const plan = { limit, reason: limit === null ? null : "Over the limit." };
    const claim = () =>
      t.ctx.syncRepos.backups.claimBackupsForSync(accountId, userId, jobId, new Date(), plan);
    for (let i = 0; i < 20; i++) await claim();
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) await claim();
    return (performance.now() - t0) / 200;
  };
  const none = await time(null);
  const premium = await time(postLimit("premium"));
  await sql`DELETE FROM users WHERE id = ${userId}`.execute(t.ctx.db);
  return `  ${posts.toLocaleString("en-US")} posts: ${none.toFixed(3)} ms with no limit, ${premium.toFixed(3)} ms with premium's (${postLimit("premium")})`;
}

async function main() {
  log(`starting sandbox and database; seeding ${ACCOUNTS} accounts`);
  const t = await createSandboxedApp(secrets, { sandbox: { largeVideoBytes: 1024 * 1024 } });
  const workers: Worker[] = [];
  try {
    const h = backupHelpers(t);
    // The Graph budget is not what is measured (until the pacing part): the sandbox's hourly
    // budget would otherwise run out while thousands of accounts are seeded.
    await h.control("/graph/usage", {
      body: { buc_budget_per_day: 1e9, app_budget_per_hour: 1e9 },
    });
    const s0 = performance.now();
    const ids = await seed(t, h);
    log(`seeded in ${f2((performance.now() - s0) / 1000)} s`);
    // Every provider call takes LATENCY_MS more.
    await h.control("/latency", { body: { ms: LATENCY_MS } });
    const results: string[] = [];
    let first: number | null = null;
    for (const n of WORKER_COUNTS) {
      while (workers.length < n) workers.push(await startWorker(t));
      while (workers.length > n) workers.pop()?.child.kill("SIGTERM");
      // A worker schedules the scheduler's cron tick when it starts; a tick during a cycle would
      // queue a sync of every (paid) bench account on top of the measured ones. The bench ticks
      // the scheduler itself (pacing).
      await t.ctx.queue.boss.unschedule(syncSchedulerJob.name);
      if (WARMUP > 0) {
        log(`warming up ${n} worker process(es) with ${WARMUP} syncs`);
        await syncAll(t, ids.slice(0, WARMUP), "backup", new Date());
      }
      log(`cycle with ${n} worker process(es)`);
      const r = await runCycle(t, h, workers, ids);
      first ??= r.perSecond;
      results.push(
        [
          `${n} worker process(es):`,
          `  unchanged-account syncs: ${ids.length} in ${f2(r.seconds)} s = ${f2(r.perSecond)} syncs/s${n > 1 ? ` (${f2(r.perSecond / first)}× one worker)` : ""}; not completed: ${r.failed}${r.failed ? ` (${r.failures})` : ""}`,
          `  Graph calls / sync:      ${f2(r.graphPerSync)}`,
          ...r.graphLines,
          `  Drive calls:             ${r.drive}`,
          `  DB queries / sync:       ${f2(r.queriesPerSync)} (sent by the worker processes, queue included)`,
          `  CPU during the syncs:    ${r.cpu}`,
          `  queue delay (queued → started, ${DELAY_SAMPLES} syncs queued one by one over 10 s): p50 ${f2(r.p50)} ms, p99 ${f2(r.p99)} ms`,
        ].join("\n"),
      );
    }
    const pacedIds = ids.slice(0, Math.min(PACING_ACCOUNTS, ids.length));
    if (pacedIds.length > 0) log(`Graph budget pacing with ${workers.length} worker process(es)`);
    const paced =
      pacedIds.length > 0
        ? await pacing(t, h, pacedIds)
        : ["  (not measured: BENCH_PACING_ACCOUNTS=0)"];
    if (HISTORIES.length > 0) log("an unchanged account's claim as its history grows");
    const history: string[] = [];
    for (const posts of HISTORIES) history.push(await claimByHistory(t, posts));
    if (WALK_POSTS.length > 0) log("the archive's walks of the media list");
    const walks: string[] = [];
    for (const posts of WALK_POSTS) walks.push(...(await walkCost(t, h, posts)));
    await h.control("/latency", { body: { ms: 0 } });
    const comments = await commentReadCost(t, h);
    console.log(
      [
        `Keepsake sync benchmark: ${ACCOUNTS} accounts, +${LATENCY_MS} ms per provider call, ${t.database.schema ? "PostgreSQL server" : "embedded database"}`,
        ...results,
        "Graph budget (the scheduler spreads from 50 % and waits from 80 %):",
        ...paced,
        "An unchanged account's claim (every post backed up; 200 calls, ms per call):",
        ...(history.length > 0 ? history : ["  (not measured: BENCH_HISTORY=0)"]),
        `The archive's walks of an account's media list (+${LATENCY_MS} ms per call, paced by the Graph budget):`,
        ...(walks.length > 0 ? walks : ["  (not measured: BENCH_WALK_POSTS=0)"]),
        ...comments,
      ].join("\n"),
    );
  } finally {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGTERM");
    await t.close();
  }
}

await main();
process.exit(0);
