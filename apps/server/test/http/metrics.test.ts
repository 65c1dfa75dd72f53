import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../../scripts/free-port.ts";
import { statusSampleJob } from "../../src/status/status-sample.job.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until } from "../support/wait.ts";

const TOKEN = randomBytes(16).toString("hex");
const WORKER = fileURLToPath(new URL("../support/worker-process.ts", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "keepsake-metrics-"));

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
beforeAll(async () => {
  t = await createSandboxedApp({ METRICS_TOKEN: TOKEN }, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function scrape(headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) {
  const res = await t.app.inject({ method: "GET", url: "/metrics", headers });
  return { status: res.statusCode, text: res.body };
}

/** The value of one sample: `name{labels…} value`, 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? "").split(",");
    if (want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return 0;
}

describe("/metrics", () => {
  it("is for operators: the token from the configuration, as a bearer token", async () => {
    expect(await scrape({})).toMatchObject({ status: 401 });
    const wrong = await scrape({ authorization: `Bearer ${"x".repeat(32)}` });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).detail).toMatch(/METRICS_TOKEN/);
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.text).toContain("keepsake_http_request_duration_seconds");
  });

  it("without a token, answers loopback callers only", async () => {
    const open = await createSandboxedApp({}, {});
    try {
      const local = await open.app.inject({ method: "GET", url: "/metrics" });
      expect(local.statusCode).toBe(200);
      const remote = await open.app.inject({
        method: "GET",
        url: "/metrics",
        remoteAddress: "203.0.113.7",
      });
      expect(remote.statusCode).toBe(403);
      expect(JSON.parse(remote.body).detail).toMatch(/METRICS_TOKEN/);
    } finally {
      await open.close();
    }
  });

  it("counts jobs per queue and state, and the queue delay", async () => {
    const before = sample((await scrape()).text, "keepsake_jobs", {
      queue: statusSampleJob.name,
      state: "waiting",
    });
    await t.ctx.queue.send(statusSampleJob, {});
    await t.ctx.queue.send(statusSampleJob, {}, { startAfter: 3600 });
    const text = (await scrape()).text;
    expect(sample(text, "keepsake_jobs", { queue: statusSampleJob.name, state: "waiting" })).toBe(
      before + 1,
    );
    expect(
      sample(text, "keepsake_jobs", { queue: statusSampleJob.name, state: "scheduled" }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).toContain('keepsake_jobs{queue="backup-post",state="failed"} 0');
    expect(
      sample(text, "keepsake_queue_delay_seconds", { queue: statusSampleJob.name }),
    ).toBeGreaterThanOrEqual(0);
    expect(text).toContain('keepsake_queue_delay_seconds{queue="sync-account"} 0');
  });

  it("counts backups by outcome, provider calls by kind (Drive chunks too), and each automatic account's sync lag", async () => {
    const user = await h.connectedUser({ tier: "pro" });
    const lagBefore = sample((await scrape()).text, "keepsake_sync_lag_seconds_count");
    const before = (await scrape()).text;
    const calls = (kind: string, text: string) =>
      sample(text, "keepsake_provider_calls_total", { provider: "google", kind });
    const media = await h.media();
    const video = media.find(
      (x) =>
        x.media_type === "VIDEO" && !x.media_url_withheld && (x.video_bytes ?? 0) > 1024 * 1024,
    )!;
    const image = media.find((x) => x.media_type === "IMAGE")!;
    await h.listPosts(user);
    await h.leaveOnlyToBackUp(user.user.id, new Set([video.id, image.id]));
    // Drive fails one chunk with a 503: an error of that kind, then the retry goes through.
    await h.control("/faults", {
      body: { endpoint: "drive.upload.resumable.put", error: "http:503", count: 1 },
    });
    await h.syncAndDrain(user.user.id, user.accountId);
    const last = (await scrape()).text;

    expect(
      sample(last, "keepsake_backups_total", { outcome: "completed", reason: "uploaded" }) -
        sample(before, "keepsake_backups_total", { outcome: "completed", reason: "uploaded" }),
    ).toBe(2);
    // The video goes up in 512 KiB chunks of one resumable session.
    expect(
      calls("drive.upload.resumable.start", last) - calls("drive.upload.resumable.start", before),
    ).toBeGreaterThanOrEqual(1);
    expect(calls("drive.upload.chunk", last) - calls("drive.upload.chunk", before)).toBeGreaterThan(
      Math.ceil((video.video_bytes ?? 0) / FAST_ENGINE.chunkBytes!),
    );
    const errors = (text: string) =>
      sample(text, "keepsake_provider_errors_total", {
        provider: "google",
        kind: "drive.upload.chunk",
      });
    expect(errors(last) - errors(before)).toBe(1);
    expect(
      sample(last, "keepsake_provider_calls_total", { provider: "instagram", kind: "cdn" }),
    ).toBeGreaterThan(0);
    expect(
      sample(last, "keepsake_provider_calls_total", { provider: "instagram", kind: "graph" }),
    ).toBeGreaterThan(0);

    // The pro account is synced automatically: its lag is in the histogram.
    expect(sample(last, "keepsake_sync_lag_seconds_count")).toBe(lagBefore);
    expect(lagBefore).toBeGreaterThanOrEqual(1);
    expect(sample(last, "keepsake_sync_lag_seconds_bucket", { le: "+Inf" })).toBe(lagBefore);
    // A free account is not.
    const free = await h.connectedUser({
      instagram: "8410000000000002",
      google: "104000000000000000002",
    });
    expect(free).toBeTruthy();
    expect(sample((await scrape()).text, "keepsake_sync_lag_seconds_count")).toBe(lagBefore);
  });

  it("a worker serves its own on METRICS_PORT, with the same token", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [WORKER], {
      env: {
        ...process.env,
        JWT_SECRET: randomBytes(32).toString("hex"),
        ENCRYPTION_KEY: randomBytes(32).toString("hex"),
        DATA_DIR: dataDir,
        HOST: "127.0.0.1",
        METRICS_PORT: String(port),
        METRICS_TOKEN: TOKEN,
        WORKER_DATABASE_URL: t.database.url,
        WORKER_SANDBOX_URL: t.sandbox.url,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      await until(
        () =>
          fetch(`http://127.0.0.1:${port}/metrics`).then(
            (r) => r.status,
            () => 0,
          ),
        (s) => s !== 0,
      );
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
      const ok = await fetch(`http://127.0.0.1:${port}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(ok.status).toBe(200);
      const text = await ok.text();
      expect(text).toContain("# TYPE keepsake_backups_total counter");
      expect(text).toContain("# TYPE keepsake_provider_calls_total counter");
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  });
});
