import { sql } from "kysely";
import { postLimit } from "../src/billing/tier-rules.ts";
import { syncAccountJob } from "../src/sync/jobs/sync-account.job.ts";
import { syncSchedulerJob } from "../src/sync/jobs/sync-scheduler.job.ts";
import { backupHelpers, requestsByEndpoint } from "../test/support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../test/support/sandbox.ts";
import { commentReadCost } from "./comment-reads.ts";
import { cpuLine, cpuSnapshot } from "./cpu.ts";
import { benchDatabase } from "./server-database.ts";
import {
  insertAccounts,
  log,
  newRoundKeys,
  refreshSync,
  type SandboxAccount,
  secrets,
  seed,
  startWorker,
  syncAll,
  type Worker,
} from "./sync-fleet.ts";

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
const f2 = (n: number) => n.toFixed(2);

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
  const database = await benchDatabase(process.env.TEST_DATABASE_URL, "keepsake_sync");
  const t = await createSandboxedApp(secrets, {
    sandbox: { largeVideoBytes: 1024 * 1024 },
    database,
  });
  const workers: Worker[] = [];
  try {
    const h = backupHelpers(t);
    // The Graph budget is not what is measured (until the pacing part): the sandbox's hourly
    // budget would otherwise run out while thousands of accounts are seeded.
    await h.control("/graph/usage", {
      body: { buc_budget_per_day: 1e9, app_budget_per_hour: 1e9 },
    });
    const s0 = performance.now();
    const ids = await seed(t, h, ACCOUNTS);
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
        `Keepsake sync benchmark: ${ACCOUNTS} accounts, +${LATENCY_MS} ms per provider call, ${database.name ? `PostgreSQL server, database ${database.name}` : "embedded database"}`,
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
