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
 * BENCH_DESTINATION (destination.ts; default google_drive): every user connects that destination
 * and points their account at it; the faults and cuts hit its upload endpoints and the verdict
 * reads its listing (chaos-verdict.ts). BENCH_RUNS (default 1): runs, each on a fresh sandbox
 * and database; more than one ends with min / median / max.
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
import { chaosVerdict } from "./chaos-verdict.ts";
import {
  type BenchDestination,
  benchDestination,
  CALL_PREFIX,
  connectDestination,
  LABELS,
} from "./destination.ts";
import { createServerDatabase } from "./server-database.ts";

const ACCOUNTS = Number(process.env.CHAOS_ACCOUNTS ?? 20);
const POSTS = Number(process.env.CHAOS_POSTS ?? 50);
const FAULT_PERCENT = Number(process.env.CHAOS_FAULT_PERCENT ?? 10);
const STORM_SECONDS = Number(process.env.CHAOS_STORM_SECONDS ?? 60);
const KILLS = Number(process.env.CHAOS_KILLS ?? 5);
const TIMEOUT_MINUTES = Number(process.env.CHAOS_TIMEOUT_MINUTES ?? 15);
const DESTINATION = benchDestination();
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
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

/** Upload endpoints the 5xx faults hit, and the control call that cuts the next upload. */
const DESTINATION_FAULTS: Record<BenchDestination, { endpoints: string[]; cut: string }> = {
  google_drive: { endpoints: ["drive.upload*", "drive.files*"], cut: "/drive/cut" },
  dropbox: { endpoints: ["dropbox.files/upload*", "dropbox.files/*"], cut: "/dropbox/cut" },
  onedrive: { endpoints: ["onedrive.upload*", "onedrive.items*"], cut: "/onedrive/cut" },
  s3: { endpoints: ["s3.put", "s3.multipart.*"], cut: "/s3/cut" },
};

interface ChaosFigures {
  missing: number;
  duplicates: number;
  mismatches: number;
  neverEnded: number;
  minutes: number | null;
}

async function runChaos(run: number): Promise<ChaosFigures> {
  const server = await createServerDatabase(serverUrl as string, "keepsake_chaos");
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
    // 1. Users, their destination, accounts.
    log(
      `run ${run}/${RUNS}: seeding ${ACCOUNTS} accounts of ${POSTS} posts (${LABELS[DESTINATION]})`,
    );
    const { accounts } = await h.control<{
      accounts: { id: string; user_id: string; username: string; access_token: string }[];
    }>("/instagram/accounts", { body: { count: ACCOUNTS, posts: POSTS } });
    const key = Buffer.from(secrets.ENCRYPTION_KEY, "hex");
    const users: { token: string; userId: string; username: string }[] = [];
    for (const a of accounts) {
      const u = await t.signUp({ tier: "pro" });
      await t.connectDrive(u.token, DEMO_GOOGLE.jordan.sub);
      const now = new Date();
      const inserted = await t.ctx.db
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
        .returning("id")
        .executeTakeFirstOrThrow();
      if (DESTINATION !== "google_drive")
        await connectDestination(t, u.token, DESTINATION, [inserted.id]);
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
    const prefix = CALL_PREFIX[DESTINATION];
    const faults = DESTINATION_FAULTS[DESTINATION];
    let lastCalls = 0;
    const totalCalls = async () =>
      Object.entries(await h.calls())
        .filter(
          ([k]) =>
            k.startsWith("ig.") ||
            k.startsWith("fb.") ||
            k.startsWith("cdn") ||
            k.startsWith(prefix),
        )
        .reduce((n, [, v]) => n + v, 0);
    const tick = async (second: number) => {
      const calls = await totalCalls();
      const count = Math.round(((calls - lastCalls) * FAULT_PERCENT) / 100);
      lastCalls = calls;
      const endpoints = ["ig.media*", "cdn", ...faults.endpoints];
      for (let i = 0; i < count; i++) {
        const endpoint = endpoints[i % endpoints.length]!;
        await h.control("/faults", { body: { endpoint, count: 1, error: "http:503" } });
      }
      if (second === 10) await h.control("/graph/usage", { body: { app_call_count: 100 } });
      if (second === 10 + STORM_SECONDS)
        await h.control("/graph/usage", { body: { app_call_count: 0 } });
      if (second % 20 === 0) await h.control("/cdn/expire", { body: {} });
      if (second % 5 === 0) await h.control(faults.cut, { body: { after_bytes: 256 * 1024 } });
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
    log(`chaos over; waiting for every post to reach ${LABELS[DESTINATION]}`);

    // 4. Convergence: press Backup again for users whose last run ended with backups left.
    const deadline = started + TIMEOUT_MINUTES * 60_000;
    let converged: number | null = null;
    while (Date.now() < deadline) {
      const { have } = await chaosVerdict(t, DESTINATION, expected);
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
    const { files, missing, duplicates, mismatches, checked } = await chaosVerdict(
      t,
      DESTINATION,
      expected,
    );
    const neverEnded = await t.ctx.db
      .selectFrom("sync_jobs")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "running")
      .executeTakeFirstOrThrow();
    const where = DESTINATION === "google_drive" ? "Drive" : LABELS[DESTINATION];
    const hashName = DESTINATION === "google_drive" ? "md5" : "hash";
    const minutes = converged ? (converged - started) / 60_000 : null;
    console.log(
      [
        `Keepsake chaos benchmark: ${ACCOUNTS} accounts, 2 workers (${kills} SIGKILLs), ${FAULT_PERCENT} % provider 5xx, ${STORM_SECONDS} s Graph throttling storm, CDN expiries, cut uploads; PostgreSQL server${DESTINATION === "google_drive" ? "" : `; destination ${LABELS[DESTINATION]}`}`,
        `  posts expected:        ${postsExpected} (${expected.size} files)`,
        `  ${`files in ${where}:`.padEnd(23)}${files.length}`,
        `  missing:               ${missing.length}${missing.length ? ` (${missing.slice(0, 5).join(", ")}…)` : ""}`,
        `  duplicate files:       ${duplicates}`,
        `  ${`${hashName} mismatches:`.padEnd(23)}${mismatches}${DESTINATION === "google_drive" ? "" : ` (${checked} files compared with the hash Keepsake verified)`}`,
        `  runs that never ended: ${neverEnded.n}`,
        `  minutes to converge:   ${minutes !== null ? minutes.toFixed(1) : `did not within ${TIMEOUT_MINUTES}`}`,
      ].join("\n"),
    );
    return {
      missing: missing.length,
      duplicates,
      mismatches,
      neverEnded: Number(neverEnded.n),
      minutes,
    };
  } finally {
    for (const w of workers) w.kill("SIGKILL");
    await t.close();
  }
}

const results: ChaosFigures[] = [];
for (let run = 1; run <= RUNS; run++) results.push(await runChaos(run));
if (RUNS > 1) {
  const sum = (f: (r: ChaosFigures) => number) => results.reduce((n, r) => n + f(r), 0);
  const minutes = results.map((r) => r.minutes);
  const done = minutes.filter((m): m is number => m !== null).sort((a, b) => a - b);
  console.log(
    [
      `${LABELS[DESTINATION]}: ${RUNS} runs`,
      `  missing / duplicates / mismatches / runs never ended, all runs: ${sum((r) => r.missing)} / ${sum((r) => r.duplicates)} / ${sum((r) => r.mismatches)} / ${sum((r) => r.neverEnded)}`,
      `  minutes to converge, min / median / max: ${done.length === RUNS ? [done[0], done[Math.floor(RUNS / 2)], done[RUNS - 1]].map((m) => (m as number).toFixed(1)).join(" / ") : `${RUNS - done.length} run(s) did not converge`}`,
    ].join("\n"),
  );
}
process.exitCode = results.some(
  (r) => r.missing || r.duplicates || r.mismatches || r.neverEnded || r.minutes === null,
)
  ? 1
  : 0;
process.exit();
