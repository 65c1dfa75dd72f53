import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listMigrations } from "../../src/db/migrate.ts";
import { jobRegistry } from "../../src/job-registry.ts";
import { createServerDatabase } from "../support/database.ts";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "keepsake-migrate-"));
const SECRETS = {
  JWT_SECRET: randomBytes(32).toString("hex"),
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};

/** An empty database on the run's PostgreSQL (TEST_DATABASE_URL's server, else the embedded one). */
let url: string;
let drop: () => Promise<void>;
beforeAll(async () => {
  const db = await createServerDatabase({ empty: true });
  url = db.url;
  drop = db.drop;
});
afterAll(async () => {
  await drop?.();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `node apps/server/src/main.ts migrate`, as compose's one-shot service runs it (from sources). */
function migrateProcess(n: number) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [MAIN, "migrate"], {
      env: {
        ...process.env,
        NODE_ENV: "test",
        LOG_LEVEL: "silent",
        DATABASE_URL: url,
        // Required with DATABASE_URL (config.ts); the same for every process, as in compose.
        JWT_SECRET: SECRETS.JWT_SECRET,
        ENCRYPTION_KEY: SECRETS.ENCRYPTION_KEY,
        DATA_DIR: join(dataDir, String(n)),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => {
      output += String(d);
    });
    child.stderr.on("data", (d) => {
      output += String(d);
    });
    child.on("exit", (code) => resolve({ code, output }));
  });
}

describe("several processes starting at once on an empty database", () => {
  it("apply every migration once and create the job queues once (three processes)", async () => {
    const results = await Promise.all([1, 2, 3].map(migrateProcess));
    for (const r of results) expect(r.code, r.output).toBe(0);
    const applied = results.map((r) => Number(/\((\d+) new\)/.exec(r.output)?.[1]));
    // Exactly one applied the migrations; the others found them applied.
    expect(applied.sort((a, b) => a - b)).toEqual([0, 0, listMigrations().length]);

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query<{ name: string }>("SELECT name FROM schema_migrations");
      expect(rows.map((r) => r.name).sort()).toEqual(listMigrations().map((m) => m.name));
      const queues = await c.query<{ name: string }>("SELECT name FROM pgboss.queue");
      for (const job of jobRegistry) expect(queues.rows.map((q) => q.name)).toContain(job.name);
    } finally {
      await c.end();
    }
  }, 120_000);
});
