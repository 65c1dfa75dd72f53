import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { resolve } from "node:path";

/**
 * The seeder: one process beside each shared Keepsake that holds a connection to its database
 * (joined as the CLI joins it) and runs the typed seed operations (seed-ops.ts) a test asks for
 * over loopback HTTP, with a bearer token of its own. One process for the whole suite instead
 * of a child process per operation, each loading the server's modules again.
 */
export interface Seeder {
  url: string;
  token: string;
}

const ROOT = resolve(import.meta.dirname, "../..");
const LISTENING = "seeder-listening:";

/** Starts the seeder on a running Keepsake's data directory; answers it and a way to stop it. */
export async function startSeeder(
  dataDir: string,
): Promise<{ seeder: Seeder; stop(): Promise<void> }> {
  const token = randomBytes(24).toString("hex");
  const child: ChildProcess = spawn(process.execPath, ["e2e/support/seeder.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn", SEEDER_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const port = await new Promise<number>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the seeder did not start:\n${out}`)), 60_000);
    const read = (d: Buffer) => {
      out += d;
      const m = new RegExp(`${LISTENING}(\\d+)`).exec(out);
      if (m) {
        clearTimeout(timer);
        ok(Number(m[1]));
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`the seeder exited (${code}):\n${out}`));
    });
  });
  return {
    seeder: { url: `http://127.0.0.1:${port}`, token },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Runs one seed operation by name; answers what it returns. */
export async function runSeed(seeder: Seeder, op: string, args: unknown): Promise<unknown> {
  const res = await fetch(seeder.url, {
    method: "POST",
    headers: { authorization: `Bearer ${seeder.token}`, "content-type": "application/json" },
    body: JSON.stringify({ op, args }),
  });
  const answer = (await res.json()) as { result?: unknown; error?: string };
  if (!res.ok) throw new Error(`seed ${op} failed: ${answer.error ?? res.status}`);
  return answer.result ?? null;
}

/** The seeder process itself (`node e2e/support/seeder.ts`, DATA_DIR and SEEDER_TOKEN set). */
async function serve() {
  // Loaded by path, as the CLI loads them: the runtime's module graph (provider clients written
  // for Node's types) is the server's to type-check, not this browser-typed project's.
  const server = (path: string) => import(`../../apps/server/src/${path}`);
  const { loadConfig } = (await server("config.ts")) as { loadConfig(): unknown };
  const { openDatabase } = (await server("runtime.ts")) as {
    openDatabase(config: unknown): Promise<{
      database: { db: unknown };
      url: string;
      close(): Promise<void>;
    }>;
  };
  const { seedOps } = await import("./seed-ops.ts");
  const { database, url, close } = await openDatabase(loadConfig());
  const expected = `Bearer ${process.env.SEEDER_TOKEN}`;
  const http = createServer(async (req, res) => {
    res.setHeader("content-type", "application/json");
    if (!process.env.SEEDER_TOKEN || req.headers.authorization !== expected) {
      res.statusCode = 401;
      res.end(JSON.stringify({ error: "a seeder token is required" }));
      return;
    }
    let body = "";
    for await (const piece of req) body += piece;
    try {
      const { op, args } = JSON.parse(body) as { op: keyof typeof seedOps; args: never };
      const run = seedOps[op] as (db: unknown, a: never, env: { url: string }) => Promise<unknown>;
      if (typeof run !== "function") throw new Error(`no seed operation "${String(op)}"`);
      const result = await run(database.db, args, { url });
      res.end(JSON.stringify({ result: result ?? null }));
    } catch (err) {
      res.statusCode = 500;
      res.end(
        JSON.stringify({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
      );
    }
  });
  http.listen(0, "127.0.0.1", () => {
    const address = http.address();
    console.log(`${LISTENING}${typeof address === "object" && address ? address.port : 0}`);
  });
  process.once("SIGTERM", () => {
    http.close();
    close().finally(() => process.exit(0));
  });
}

if (import.meta.main) await serve();
