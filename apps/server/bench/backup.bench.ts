/**
 * `npm run bench:backup`: backs up a sandbox account over loopback — the demo account's images
 * (carousel children included) plus one large video — with a Keepsake worker in its own
 * process, then copies the same bytes with a plain streaming download-and-upload (no Keepsake
 * logic) and prints both, with the worker's peak RSS and CPU seconds. Keepsake's time runs from
 * the API call that starts the sync to the run's end as the worker recorded it (the sync, the
 * Drive folders and every file included); it starts once the jobs the set-up queued (the new
 * user's mail, the first listing), which the new worker runs first, are done.
 *
 * The worker runs as production runs it (`npm run worker`: built JavaScript). DATABASE_URL: a
 * new database on that PostgreSQL server (dropped afterwards); unset: the embedded database. On
 * both, the API process's NOTIFY wakes the worker process as in a deployment.
 *
 * It also prints the CPU seconds the other processes used meanwhile (this one: the sandbox, and
 * the plain copy's own requests; PostgreSQL's), which tell whether the machine was saturated.
 *
 * The reference is a plain copy of the same media into the same destination: each download
 * piped into the fewest requests that destination takes for a file (plain-copy.ts,
 * plain-copy-destinations.ts). For the other destinations the plain copy into Google Drive is
 * also timed, for comparison with figures from before the references were per destination.
 *
 * BENCH_VIDEO_MB (default 300): size of the large video. BENCH_IMAGES (default all): how many
 * image posts to include. BENCH_DESTINATION (destination.ts; default google_drive): where the
 * account is backed up. BENCH_RUNS (default 1):
 * runs, each on a fresh sandbox and database; more than one ends with min / median / max.
 * BENCH_WORKER_NODE_OPTIONS: NODE_OPTIONS for the worker alone (e.g. `--cpu-prof`).
 * BENCH_LATENCY_MS (default 0): a wait the sandbox adds before answering every provider request
 * (the CDN's included), in both phases alike — loopback answers at once, real providers do not.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobQueue } from "../src/jobs/queue.ts";
import { backupHelpers, requestsByEndpoint } from "../test/support/backup.ts";
import { createSandboxedApp } from "../test/support/sandbox.ts";
import {
  type BenchDestination,
  benchDestination,
  CALL_PREFIX,
  connectDestination,
  LABELS,
} from "./destination.ts";
import { drivePlainCopy, type PlainCopyOne, plainPipedCopy } from "./plain-copy.ts";
import { dropboxPlainCopy, onedrivePlainCopy, s3PlainCopy } from "./plain-copy-destinations.ts";
import { cpuSeconds, peakRss, postgresCpuSeconds } from "./proc.ts";
import { buildServerIfStale, ROOT, roleCommand, roleEnv } from "./roles.ts";
import { benchDatabase } from "./server-database.ts";

const VIDEO_MB = Number(process.env.BENCH_VIDEO_MB ?? 300);
const IMAGES = process.env.BENCH_IMAGES
  ? Number(process.env.BENCH_IMAGES)
  : Number.POSITIVE_INFINITY;
const DESTINATION = benchDestination();
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 0);
const MB = 1024 * 1024;
const secrets = {
  JWT_SECRET: randomBytes(32).toString("hex"),
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};

const log = (...a: unknown[]) => console.error("[bench]", ...a);

/** CPU seconds this process (the sandbox, the app, the plain copy) has used so far. */
const ownCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Waits (at most 30 s) until no queue has a job waiting to run or running (`stats()`). */
async function setUpJobsDone(queue: Pick<JobQueue<unknown>, "stats">) {
  for (const end = Date.now() + 30_000; Date.now() < end; ) {
    if ((await queue.stats()).every((q) => q.waiting === 0 && q.active === 0)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the set-up's jobs did not end within 30 s");
}

/** The CDN URLs of the posts' media (carousels: their children), as the posts were listed. */
async function mediaUrls(
  t: Awaited<ReturnType<typeof createSandboxedApp>>,
  userId: string,
  chosen: Set<string>,
): Promise<string[]> {
  const urls: string[] = [];
  for (const p of await t.ctx.db
    .selectFrom("posts")
    .selectAll()
    .where("user_id", "=", userId)
    .execute()) {
    if (!chosen.has(p.instagram_id)) continue;
    if (p.children.length) for (const c of p.children) if (c.media_url) urls.push(c.media_url);
    if (!p.children.length && p.media_url) urls.push(p.media_url);
  }
  return urls;
}

/** One run's figures, for the summary of several. */
interface RunFigures {
  seconds: number;
  plainSeconds: number;
  /** The plain copy into Google Drive (for the other destinations; Drive's: plainSeconds). */
  drivePlainSeconds: number;
  cpu: number | null;
  rss: number | null;
  requestsPerFile: number;
  requestsPerPost: number;
}

async function main(run: number): Promise<RunFigures> {
  log(
    `run ${run}/${RUNS}: ${LABELS[DESTINATION]}; starting sandbox (large video ${VIDEO_MB} MB) and database`,
  );
  // The app in this process and the worker process share one database, whole.
  const database = await benchDatabase(process.env.DATABASE_URL, "keepsake_bench");
  const t = await createSandboxedApp(secrets, {
    sandbox: { largeVideoBytes: Math.round(VIDEO_MB * MB) },
    database,
  });
  let worker: ChildProcess | null = null;
  try {
    const h = backupHelpers(t);
    const user = await h.connectedUser({ tier: "pro" });
    if (DESTINATION !== "google_drive")
      await connectDestination(t, user.token, DESTINATION, [user.accountId]);
    await h.listPosts(user);

    // The set to back up: image posts (carousels' children too) and the one large video.
    const media = await h.media();
    const images = media
      .filter((m) => m.media_type === "IMAGE" || m.media_type === "CAROUSEL_ALBUM")
      .slice(0, IMAGES);
    const large = media.find((m) => (m.video_bytes ?? 0) === Math.round(VIDEO_MB * MB));
    if (!large) throw new Error("the sandbox has no large video");
    const chosen = new Set([...images.map((m) => m.id), large.id]);
    await h.leaveOnlyToBackUp(user.user.id, chosen);

    // Instagram's CDN serves files that exist; the sandbox renders each image the first time it
    // is asked for (then keeps it on disk), CPU that would compete with the backup on this
    // machine and not with the plain copy after it. Every image is asked for once beforehand.
    const jpegs = (await mediaUrls(t, user.user.id, chosen)).filter((u) => /\.jpg\?/.test(u));
    log(`asking the sandbox's CDN for ${jpegs.length} images once`);
    for (let i = 0; i < jpegs.length; i += 8)
      await Promise.all(jpegs.slice(i, i + 8).map((u) => fetch(u).then((r) => r.arrayBuffer())));

    log("starting a worker process (npm run worker)");
    buildServerIfStale();
    worker = spawn(process.execPath, roleCommand("worker"), {
      cwd: ROOT,
      env: {
        ...process.env,
        ...secrets,
        ...roleEnv("worker"),
        NODE_ENV: "production",
        LOG_LEVEL: "warn",
        DATABASE_URL: t.database.url,
        SANDBOX_PORT: new URL(t.sandbox.url).port,
        // The test sandbox's SMTP server (on a port of its own): else the new user's mail fails
        // to connect and a retry of it is queued, to run during some later measurement.
        SMTP_URL: t.sandbox.urls.smtp,
        DATA_DIR: `/tmp/keepsake-bench-${process.pid}`,
        ...(process.env.BENCH_WORKER_NODE_OPTIONS
          ? { NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS }
          : {}),
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      worker?.stdout?.on("data", (d) => /ready|is running/.test(String(d)) && resolve());
      worker?.on("exit", (c) => reject(new Error(`worker exited ${c}`)));
    });
    const baselineRss = peakRss(worker.pid as number);
    // The jobs the set-up queued (the new user's mail, the first listing) run now, in the new
    // worker: the clock starts once they are done, so it measures the backup alone.
    await setUpJobsDone(t.ctx.queue);
    const cpuBefore = cpuSeconds(worker.pid as number);

    // Every provider request (the CDN's too) waits LATENCY_MS first, in both phases.
    if (LATENCY_MS > 0) await h.control("/latency", { body: { ms: LATENCY_MS } });
    await h.control("/calls", { method: "DELETE" });
    log(`backing up ${chosen.size} posts`);
    const others0 = { own: ownCpuSeconds(), pg: postgresCpuSeconds() };
    const t0 = Date.now();
    const started = await t.call("POST", "/api/sync/start", { token: user.token, body: {} });
    const jobId = started.body.sync_job.id as string;
    let completedAt: Date | null = null;
    for (;;) {
      const job = await t.ctx.syncRepos.runs.findSyncJob(jobId);
      if (job && job.status !== "running") {
        if (job.status !== "completed") throw new Error(`sync ${job.status}: ${job.error_message}`);
        completedAt = job.completed_at;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    // Until the run's end as the worker recorded it, not until this poll (every 100 ms) saw it.
    const seconds = ((completedAt?.getTime() ?? Date.now()) - t0) / 1000;
    if (process.env.BENCH_DEBUG) {
      const rows = await t.ctx.db
        .selectFrom("backups")
        .select(["started_at", "completed_at", "backup_size_bytes", "attempts"])
        .where("user_id", "=", user.user.id)
        .where("google_drive_file_id", "is not", null)
        .orderBy("started_at")
        .execute();
      const job = await t.ctx.syncRepos.runs.findSyncJob(jobId);
      log("job", job?.started_at, job?.completed_at);
      for (const r of rows)
        log(
          r.started_at?.toISOString(),
          r.completed_at?.toISOString(),
          r.backup_size_bytes,
          r.attempts,
        );
    }
    const others = {
      own: ownCpuSeconds() - others0.own,
      pg: postgresCpuSeconds() - others0.pg,
    };
    const rss = peakRss(worker.pid as number);
    const cpuAfter = cpuSeconds(worker.pid as number);
    const cpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null;
    const calls = await h.calls();
    const done = await t.ctx.db
      .selectFrom("backups")
      .select(["backup_size_bytes", "status"])
      .where("user_id", "=", user.user.id)
      .where("google_drive_file_id", "is not", null)
      .execute();
    const bytes = done.reduce((n, b) => n + Number(b.backup_size_bytes ?? 0), 0);

    // The same media, copied by a plain, truly piped copy into the same destination: each
    // download streamed straight into the fewest upload requests the destination takes.
    const files = await t.ctx.db
      .selectFrom("backup_files as f")
      .innerJoin("backups as b", "b.id", "f.backup_id")
      .select(["f.item_key", "f.size_bytes", "f.name"])
      .where("b.user_id", "=", user.user.id)
      .execute();
    const urls = await mediaUrls(t, user.user.id, chosen);
    let metaBytes = 0;
    for (const f of files) if (f.item_key.endsWith("_meta")) metaBytes += Number(f.size_bytes ?? 0);
    const driveCopy = drivePlainCopy(
      t.sandbox.url,
      await t.ctx.connections.tokens.googleAccessToken(user.user.id),
    );
    const custody = t.ctx.connections.destinations.custody;
    const copyOne: Record<BenchDestination, () => Promise<PlainCopyOne>> = {
      google_drive: async () => driveCopy,
      dropbox: async () =>
        dropboxPlainCopy(t.sandbox.url, await custody.accessToken(user.user.id, "dropbox")),
      onedrive: async () =>
        onedrivePlainCopy(t.sandbox.url, await custody.accessToken(user.user.id, "onedrive")),
      s3: async () => s3PlainCopy(await custody.s3Settings(user.user.id)),
    };
    log(`plain piped copy of the same bytes into ${LABELS[DESTINATION]}`);
    const into = await copyOne[DESTINATION]();
    await h.control("/calls", { method: "DELETE" });
    const plainOwn0 = ownCpuSeconds();
    const plain = await plainPipedCopy(urls, 3, into);
    const plainOwn = ownCpuSeconds() - plainOwn0;
    const plainCalls = await h.calls();
    const plainDest = requestsByEndpoint(plainCalls, CALL_PREFIX[DESTINATION]);
    let drivePlain = plain;
    if (DESTINATION !== "google_drive") {
      log("plain piped copy of the same bytes into Google Drive (the earlier reference)");
      drivePlain = await plainPipedCopy(urls, 3, driveCopy);
    }

    const postsN = chosen.size;
    const f2 = (n: number) => n.toFixed(2);
    const dest = requestsByEndpoint(calls, CALL_PREFIX[DESTINATION]);
    const destLabel = DESTINATION === "google_drive" ? "Drive" : LABELS[DESTINATION];
    const graph = requestsByEndpoint(calls, "ig.", "fb.");
    console.log(
      [
        `Keepsake backup benchmark${DESTINATION === "google_drive" ? "" : ` to ${LABELS[DESTINATION]}`} (sandbox over loopback${LATENCY_MS > 0 ? `, ${LATENCY_MS} ms added to every provider request` : ""}; ${database.name ? `PostgreSQL server, database ${database.name}` : "embedded database"}; worker: npm run worker)`,
        `  posts: ${postsN} (${images.length} image/carousel posts + 1 video of ${VIDEO_MB} MB), files: ${files.length}`,
        `  total bytes:        ${bytes.toLocaleString("en-US")} (${f2(bytes / MB)} MiB, sidecars ${f2(metaBytes / 1024)} KiB)`,
        `  seconds:            ${f2(seconds)}`,
        `  throughput:         ${f2(bytes / MB / seconds)} MiB/s`,
        `  worker CPU:         ${cpu !== null ? `${f2(cpu)} s (user + system, the backup's)` : "n/a"}`,
        `  other CPU meanwhile: ${f2(others.own)} s in the sandbox's process (the sandbox, the API), ${f2(others.pg)} s PostgreSQL`,
        `  ${destLabel} requests / post: ${f2(dest.total / postsN)} (${dest.total} total, each request counted once)`,
        // Drive's output is as it was before BENCH_DESTINATION (its runs' summary has the figure).
        ...(DESTINATION === "google_drive"
          ? []
          : [`  ${destLabel} requests / file: ${f2(dest.total / files.length)}`]),
        ...dest.lines,
        `  Graph requests / post: ${f2(graph.total / postsN)} (${graph.total} total)`,
        ...graph.lines,
        `  CDN downloads:      ${calls.cdn ?? 0}`,
        `  worker peak RSS:    ${rss ? `${f2(rss / MB)} MiB` : "n/a"} (idle worker: ${baselineRss ? `${f2(baselineRss / MB)} MiB` : "n/a"})`,
        `Plain piped copy of the same media${DESTINATION === "google_drive" ? "" : ` to ${LABELS[DESTINATION]}`} (each download piped into the fewest upload requests, no Keepsake logic, 3 at a time):`,
        `  total bytes:        ${plain.bytes.toLocaleString("en-US")} (${f2(plain.bytes / MB)} MiB)`,
        `  seconds:            ${f2(plain.seconds)}`,
        `  throughput:         ${f2(plain.bytes / MB / plain.seconds)} MiB/s`,
        `  CPU:                ${f2(plainOwn)} s in the sandbox's process (the sandbox and the copy)`,
        `  ${destLabel} requests:     ${plainDest.total}`,
        `Ratio (Keepsake time / plain time): ${f2(seconds / plain.seconds)}`,
        ...(DESTINATION === "google_drive"
          ? []
          : [
              `Plain piped copy of the same media to Google Drive: ${f2(drivePlain.seconds)} s; ratio to it: ${f2(seconds / drivePlain.seconds)}`,
            ]),
      ].join("\n"),
    );
    return {
      seconds,
      plainSeconds: plain.seconds,
      drivePlainSeconds: drivePlain.seconds,
      cpu,
      rss,
      requestsPerFile: dest.total / files.length,
      requestsPerPost: dest.total / postsN,
    };
  } finally {
    if (worker && worker.exitCode === null) worker.kill("SIGTERM");
    await t.close();
  }
}

/** min / median / max of numbers, formatted. */
function spread(values: (number | null)[], digits = 2): string {
  const v = values.filter((x): x is number => x !== null).sort((a, b) => a - b);
  if (!v.length) return "n/a";
  return [v[0], v[Math.floor(v.length / 2)], v[v.length - 1]]
    .map((x) => (x as number).toFixed(digits))
    .join(" / ");
}

function summary(kind: BenchDestination, runs: RunFigures[]): string {
  const label = kind === "google_drive" ? "Drive" : LABELS[kind];
  return [
    `${LABELS[kind]}: min / median / max of ${runs.length} runs`,
    `  seconds:               ${spread(runs.map((r) => r.seconds))}`,
    `  plain copy seconds:    ${spread(runs.map((r) => r.plainSeconds))}`,
    `  ratio:                 ${spread(runs.map((r) => r.seconds / r.plainSeconds))}`,
    ...(kind === "google_drive"
      ? []
      : [
          `  Drive plain copy (s):  ${spread(runs.map((r) => r.drivePlainSeconds))}`,
          `  ratio to Drive's copy: ${spread(runs.map((r) => r.seconds / r.drivePlainSeconds))}`,
        ]),
    `  worker CPU (s):        ${spread(runs.map((r) => r.cpu))}`,
    `  worker peak RSS (MiB): ${spread(
      runs.map((r) => (r.rss === null ? null : r.rss / MB)),
      1,
    )}`,
    `  ${label} requests / file: ${spread(runs.map((r) => r.requestsPerFile))}`,
    `  ${label} requests / post: ${spread(runs.map((r) => r.requestsPerPost))}`,
  ].join("\n");
}

const figures: RunFigures[] = [];
for (let run = 1; run <= RUNS; run++) figures.push(await main(run));
if (RUNS > 1) console.log(summary(DESTINATION, figures));
process.exit(0);
