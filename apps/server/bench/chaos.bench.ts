/**
 * `npm run bench:chaos` (a benchmark, not a test): CHAOS_ACCOUNTS (20) sandbox accounts of
 * CHAOS_POSTS (50) posts each, every one on a pro user with Google Drive, backed up by two worker
 * processes on a fresh database on TEST_DATABASE_URL's PostgreSQL server (dropped afterwards)
 * while the sandbox misbehaves:
 *
 *   - about CHAOS_FAULT_PERCENT (10) % of Graph, CDN and Drive calls answer 5xx (each second, as
 *     many one-shot faults as a tenth of the previous second's calls);
 *   - a throttling storm: Graph usage at 100 % (every call refused with code 4) for
 *     CHAOS_STORM_SECONDS (60), from the 10th second;
 *   - every 20 s every CDN URL issued so far expires; every 5 s the next resumable upload chunk
 *     crossing 256 KiB is cut (the socket destroyed);
 *   - CHAOS_KILLS (5) times, every 15 s, a random worker is SIGKILLed and a new one started.
 *
 * Then the chaos stops; each user presses Backup again whenever their last run ended with
 * backups left (a failed backup waits for the next sync), until every post is in Drive or
 * CHAOS_TIMEOUT_MINUTES (15) pass. It prints posts expected, files in Drive, missing, duplicate
 * files, md5 mismatches (Drive's md5 against what Keepsake recorded), runs that never ended, and
 * minutes to converge. Target: 0 missing, 0 duplicates, 0 mismatches, every run ends.
 *
 * Workers run with the tests' engine settings (small chunks, so most files go up resumably and
 * can be cut; 4 s leases) and a 2 s queue supervision, so a killed worker's jobs move on quickly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { DEMO_GOOGLE } from "@keepsake/sandbox";
import { encryptSecret } from "../src/lib/crypto.ts";
import { backupHelpers, type SandboxMedia } from "../test/support/backup.ts";
import { createSandboxedApp } from "../test/support/sandbox.ts";
import { createServerDatabase } from "./server-database.ts";

const ACCOUNTS = Number(process.env.CHAOS_ACCOUNTS ?? 20);
const POSTS = Number(process.env.CHAOS_POSTS ?? 50);
const FAULT_PERCENT = Number(process.env.CHAOS_FAULT_PERCENT ?? 10);
const STORM_SECONDS = Number(process.env.CHAOS_STORM_SECONDS ?? 60);
const KILLS = Number(process.env.CHAOS_KILLS ?? 5);
const TIMEOUT_MINUTES = Number(process.env.CHAOS_TIMEOUT_MINUTES ?? 15);
const WORKER = fileURLToPath(new URL("../test/support/worker-process.ts", import.meta.url));
const secrets = {
  JWT_SECRET: randomBytes(32).toString("hex"),
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};
const log = (...a: unknown[]) => console.error("[chaos]", ...a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const serverUrl = process.env.TEST_DATABASE_URL;
if (!serverUrl) {
  console.error("bench:chaos needs a PostgreSQL server: set TEST_DATABASE_URL");
  process.exit(2);
}

const server = await createServerDatabase(serverUrl, "keepsake_chaos");
const t = await createSandboxedApp(secrets, {
  sandbox: { largeVideoBytes: 3 * 1024 * 1024 },
  database: { url: server.url, close: server.drop },
});
const h = backupHelpers(t);
const workers = new Set<ChildProcess>();

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...process.env,
      ...secrets,
      QUEUE_SUPERVISE_SECONDS: "2",
      WORKER_DATABASE_URL: t.database.url,
      WORKER_SANDBOX_URL: t.sandbox.url,
      DATA_DIR: `/tmp/keepsake-chaos-${process.pid}`,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  workers.add(child);
  child.on("exit", () => workers.delete(child));
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (d) => String(d).includes("ready") && resolve(child));
    child.on("exit", (c, s) => reject(new Error(`worker exited ${c ?? s} before it was ready`)));
  });
}

try {
  // 1. Users, Drive, accounts.
  log(`seeding ${ACCOUNTS} accounts of ${POSTS} posts`);
  const { accounts } = await h.control<{
    accounts: { id: string; user_id: string; username: string; access_token: string }[];
  }>("/instagram/accounts", { body: { count: ACCOUNTS, posts: POSTS } });
  const key = Buffer.from(secrets.ENCRYPTION_KEY, "hex");
  const users: { token: string; userId: string; username: string }[] = [];
  for (const a of accounts) {
    const u = await t.signUp({ tier: "pro" });
    await t.connectDrive(u.token, DEMO_GOOGLE.jordan.sub);
    const now = new Date();
    await t.ctx.db
      .insertInto("instagram_accounts")
      .values({
        user_id: u.user.id,
        instagram_user_id: a.user_id,
        connected_via: "instagram",
        username: a.username,
        account_type: "BUSINESS",
        access_token_encrypted: encryptSecret(key, a.access_token),
        token_issued_at: now,
        token_expires_at: new Date(now.getTime() + 50 * 86_400_000),
      })
      .execute();
    users.push({ token: u.token, userId: u.user.id, username: a.username });
  }
  const media = new Map<string, SandboxMedia[]>();
  for (const u of users) {
    const list = await h.control<{ media: SandboxMedia[] }>(`/instagram/${u.username}/media`);
    media.set(u.username, list.media);
  }
  const expected = new Set<string>();
  for (const list of media.values()) {
    for (const m of list) {
      expected.add(`${m.id}_meta`);
      if (m.media_url_withheld) continue;
      for (const k of m.media_type === "CAROUSEL_ALBUM" ? m.children : [m.id]) expected.add(k);
    }
  }
  const postsExpected = [...media.values()].reduce((n, l) => n + l.length, 0);

  // 2. Two workers, every user presses Backup.
  await Promise.all([startWorker(), startWorker()]);
  const started = Date.now();
  const press = (u: (typeof users)[number]) =>
    t.call("POST", "/api/sync/start", { token: u.token, body: {} });
  for (const u of users) await press(u);
  log(`backing up ${postsExpected} posts (${expected.size} files) with chaos`);

  // 3. Chaos.
  let lastCalls = 0;
  const totalCalls = async () =>
    Object.entries(await h.calls())
      .filter(([k]) => /^(ig\.|fb\.|cdn|drive\.)/.test(k))
      .reduce((n, [, v]) => n + v, 0);
  const tick = async (second: number) => {
    const calls = await totalCalls();
    const faults = Math.round(((calls - lastCalls) * FAULT_PERCENT) / 100);
    lastCalls = calls;
    const endpoints = ["ig.media*", "cdn", "drive.upload*", "drive.files*"];
    for (let i = 0; i < faults; i++) {
      const endpoint = endpoints[i % endpoints.length]!;
      await h.control("/faults", { body: { endpoint, count: 1, error: "http:503" } });
    }
    if (second === 10) await h.control("/graph/usage", { body: { app_call_count: 100 } });
    if (second === 10 + STORM_SECONDS)
      await h.control("/graph/usage", { body: { app_call_count: 0 } });
    if (second % 20 === 0) await h.control("/cdn/expire", { body: {} });
    if (second % 5 === 0) await h.control("/drive/cut", { body: { after_bytes: 256 * 1024 } });
  };
  const chaosSeconds = Math.max(10 + STORM_SECONDS, KILLS * 15) + 1;
  let kills = 0;
  for (let second = 1; second <= chaosSeconds; second++) {
    await sleep(1000);
    await tick(second).catch((err) => log(`chaos tick: ${(err as Error).message}`));
    if (second % 15 === 0 && kills < KILLS) {
      const list = [...workers];
      const victim = list[Math.floor(Math.random() * list.length)];
      if (victim) {
        victim.kill("SIGKILL");
        await new Promise((r) => victim.once("exit", r));
        kills++;
        await startWorker();
        log(`second ${second}: SIGKILLed a worker (${kills}/${KILLS}) and started another`);
      }
    }
  }
  await h.control("/faults", { method: "DELETE" });
  await h.control("/graph/usage", { body: { app_call_count: 0 } });
  log("chaos over; waiting for every post to reach Drive");

  // 4. Convergence: press Backup again for users whose last run ended with backups left.
  const deadline = started + TIMEOUT_MINUTES * 60_000;
  const driveKeys = async () => {
    const files = (await h.driveFiles()).filter((f) => !f.isFolder && !f.trashed);
    return files;
  };
  let converged: number | null = null;
  while (Date.now() < deadline) {
    const files = await driveKeys();
    const have = new Set(files.map((f) => f.appProperties.keepsakeMediaId));
    const running = await t.ctx.db
      .selectFrom("sync_jobs")
      .select("user_id")
      .where("status", "=", "running")
      .execute();
    if ([...expected].every((k) => have.has(k)) && running.length === 0) {
      converged = Date.now();
      break;
    }
    const busy = new Set(running.map((r) => r.user_id));
    const left = await t.ctx.db
      .selectFrom("backups")
      .select("user_id")
      .where("status", "in", ["pending", "failed"])
      .groupBy("user_id")
      .execute();
    for (const l of left) {
      if (busy.has(l.user_id)) continue;
      const u = users.find((x) => x.userId === l.user_id);
      if (u) await press(u);
    }
    await sleep(5000);
  }

  // 5. The verdict.
  const files = await driveKeys();
  const counts = new Map<string, number>();
  for (const f of files) {
    const k = f.appProperties.keepsakeMediaId ?? `name:${f.name}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const missing = [...expected].filter((k) => !counts.has(k));
  const duplicates = [...counts.values()].filter((n) => n > 1).reduce((n, c) => n + c - 1, 0);
  const recorded = await t.ctx.db
    .selectFrom("backup_files")
    .select(["drive_file_id", "md5"])
    .where("drive_file_id", "is not", null)
    .execute();
  const md5ById = new Map(recorded.map((r) => [r.drive_file_id, r.md5]));
  const mismatches = files.filter((f) => {
    const md5 = md5ById.get(f.id);
    return md5 && f.md5Checksum && md5 !== f.md5Checksum;
  }).length;
  const neverEnded = await t.ctx.db
    .selectFrom("sync_jobs")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "running")
    .executeTakeFirstOrThrow();
  console.log(
    [
      `Keepsake chaos benchmark: ${ACCOUNTS} accounts, 2 workers (${kills} SIGKILLs), ${FAULT_PERCENT} % provider 5xx, ${STORM_SECONDS} s Graph throttling storm, CDN expiries, cut uploads; PostgreSQL server`,
      `  posts expected:        ${postsExpected} (${expected.size} files)`,
      `  files in Drive:        ${files.length}`,
      `  missing:               ${missing.length}${missing.length ? ` (${missing.slice(0, 5).join(", ")}…)` : ""}`,
      `  duplicate files:       ${duplicates}`,
      `  md5 mismatches:        ${mismatches}`,
      `  runs that never ended: ${neverEnded.n}`,
      `  minutes to converge:   ${converged ? ((converged - started) / 60_000).toFixed(1) : `did not within ${TIMEOUT_MINUTES}`}`,
    ].join("\n"),
  );
  process.exitCode = missing.length || duplicates || mismatches || Number(neverEnded.n) ? 1 : 0;
} finally {
  for (const w of workers) w.kill("SIGKILL");
  await t.close();
}
process.exit();
