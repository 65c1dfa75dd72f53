import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { backupHelpers, FAST_ENGINE } from "./backup.ts";
import { createSandboxedApp, type SandboxedApp } from "./sandbox.ts";

// One app and sandbox per test file, and worker processes (as `npm run worker` runs them) on
// its database. `t` and `h` are live bindings, set before the file's first test.

const WORKER = fileURLToPath(new URL("./worker-process.ts", import.meta.url));
const secrets = {
  JWT_SECRET: randomBytes(32).toString("hex"),
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};

export let t: SandboxedApp;
export let h: ReturnType<typeof backupHelpers>;
export const workers: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "keepsake-workers-"));

/** Registers the file's set-up and tear-down. */
export function workerProcessSuite() {
  beforeAll(async () => {
    t = await createSandboxedApp(secrets, {
      sandbox: { largeVideoBytes: 4 * 1024 * 1024 },
      engineSettings: FAST_ENGINE,
    });
    h = backupHelpers(t);
  });
  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null) w.kill("SIGKILL");
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
}

/** A worker process; `name` becomes its sessions' application_name in the database. */
export function startWorker(
  name = "keepsake-worker",
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...process.env,
      ...secrets,
      ...env,
      PGAPPNAME: name,
      DATA_DIR: dataDir,
      QUEUE_SUPERVISE_SECONDS: "2",
      WORKER_DATABASE_URL: t.database.url,
      WORKER_SANDBOX_URL: t.sandbox.url,
      SMTP_URL: t.sandbox.urls.smtp,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  workers.push(child);
  let err = "";
  child.stderr?.on("data", (d) => {
    err += String(d);
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      if (String(d).includes("ready")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`worker exited (${code}): ${err}`)));
  });
}
