import { type ChildProcess, spawn } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../../scripts/free-port.ts";
import type { Seeder } from "./seeder.ts";

const ROOT = resolve(import.meta.dirname, "../..");

/** What another process (a test file) needs to use a Keepsake this one started. */
export interface SharedKeepsake {
  url: string;
  sandboxUrl: string;
  dataDir: string;
  /** Everything the process wrote, appended as it writes. */
  logFile: string;
  /** The seeder beside it (the global set-up starts one for each shared Keepsake). */
  seeder?: Seeder;
}

export interface RunningKeepsake {
  url: string;
  /** The provider sandbox's origin, in sandbox mode. */
  sandboxUrl: string;
  dataDir: string;
  /** Runs seed operations on its database (seed() in flows.ts); shared Keepsakes only. */
  seeder?: Seeder;
  output(): string;
  /** Stops the process with `signal` (SIGTERM: graceful; SIGKILL: a crash). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same data directory and ports. */
  restart(): Promise<void>;
  /** Stops it and removes its data. */
  dispose(): Promise<void>;
  /** Its description for test files in other processes (`attachKeepsake`). */
  shared(): SharedKeepsake;
}

/**
 * A Keepsake started by another process (the suite's global set-up), used as it runs: it
 * cannot be stopped or restarted from here; a file that needs that starts its own.
 */
export function attachKeepsake(shared: SharedKeepsake): RunningKeepsake {
  const refuse = async () => {
    throw new Error("the shared Keepsake is not stopped by a test file: start one of its own");
  };
  return {
    url: shared.url,
    sandboxUrl: shared.sandboxUrl,
    dataDir: shared.dataDir,
    ...(shared.seeder ? { seeder: shared.seeder } : {}),
    output: () => (existsSync(shared.logFile) ? readFileSync(shared.logFile, "utf8") : ""),
    stop: refuse,
    restart: refuse,
    dispose: async () => {},
    shared: () => shared,
  };
}

/**
 * Runs Keepsake the way `npm start` does (`node scripts/start.ts`): embedded database and
 * sandbox, on free loopback ports and a private data directory.
 */
export async function startKeepsake(env: Record<string, string> = {}): Promise<RunningKeepsake> {
  const dataDir = mkdtempSync(join(tmpdir(), "keepsake-e2e-"));
  const port = await freePort();
  const sandboxPort = await freePort();
  const smtpPort = await freePort();
  const url = `http://localhost:${port}`;
  // Beside the data directory, not in it: the data directory belongs to Keepsake.
  const logFile = `${dataDir}.log`;
  let child: ChildProcess | null = null;
  let log = "";

  async function launch() {
    log = "";
    writeFileSync(logFile, "");
    // As `npm start` runs it (package.json: the same node flags).
    child = spawn(process.execPath, ["scripts/start.ts"], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "localhost",
        APP_URL: url,
        SANDBOX_PORT: String(sandboxPort),
        SANDBOX_SMTP_PORT: String(smtpPort),
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
        NODE_ENV: "production",
        // Every browser and test of the suite is one client address (loopback), and a shared
        // Keepsake sees the registrations of many files: more than one person's hourly limit.
        REGISTER_MAX_PER_HOUR: "1000",
        // Lumen Studio's large reel at 8 MiB, not 300: still several upload chunks, and no test
        // here is about size (the benchmarks are), while each backup of it cost seconds of CPU.
        SANDBOX_LARGE_VIDEO_BYTES: String(8 * 1024 * 1024),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const keep = (d: Buffer) => {
      log += d;
      appendFileSync(logFile, d);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`Keepsake exited early:\n${log}`);
      try {
        const res = await fetch(`${url}/api/ready`);
        if (res.ok) return;
      } catch {}
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`Keepsake did not become ready:\n${log}`);
  }

  async function stop(signal: NodeJS.Signals = "SIGTERM") {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((r) => c.once("exit", () => r()));
    c.kill(signal);
    const timer = setTimeout(() => c.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }

  await launch();
  return {
    url,
    sandboxUrl: `http://127.0.0.1:${sandboxPort}`,
    dataDir,
    output: () => log,
    stop,
    restart: launch,
    async dispose() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(logFile, { force: true });
    },
    shared: () => ({ url, sandboxUrl: `http://127.0.0.1:${sandboxPort}`, dataDir, logFile }),
  };
}
