import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../src/context.ts";
import { connectDatabase } from "../src/db/database.ts";
import { startEmbeddedPostgres } from "../src/db/embedded.ts";
import { listMigrations, migrate } from "../src/db/migrate.ts";
import { jobRegistry } from "../src/job-registry.ts";
import { createJobQueue } from "../src/jobs/queue.ts";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "keepsake-migrate-"));
const SECRETS = {
  JWT_SECRET: randomBytes(32).toString("hex"),
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};

/** An empty database: a new one on TEST_DATABASE_URL's server, else a fresh in-memory PGlite. */
let url: string;
let drop: () => Promise<void>;
beforeAll(async () => {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) {
    const embedded = await startEmbeddedPostgres({});
    url = embedded.url;
    drop = () => embedded.close();
    return;
  }
  const name = `keepsake_migrate_${randomBytes(5).toString("hex")}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: server });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(server);
  u.pathname = `/${name}`;
  url = u.toString();
  drop = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
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

/**
 * Three connections migrating at once in this process: the embedded database, whose files belong
 * to one process (the others reach it through its socket), and whose connections all share one
 * session, where the advisory lock serialises nothing.
 */
async function migrateConnections() {
  const handles = [1, 2, 3].map(() => connectDatabase({ url, max: 2 }));
  try {
    const results = await Promise.allSettled(handles.map((h) => migrate(h.pool)));
    const queues = handles.map(() =>
      createJobQueue<AppContext>({ connectionString: url, schema: "pgboss", jobs: jobRegistry }),
    );
    await Promise.all(queues.map((q) => q.start()));
    await Promise.all(queues.map((q) => q.stop()));
    return results.map((r) => {
      if (r.status === "rejected") throw r.reason;
      return r.value.length;
    });
  } finally {
    await Promise.all(handles.map((h) => h.close()));
  }
}

describe("several processes starting at once on an empty database", () => {
  it("apply every migration once and create the job queues once (three processes on a PostgreSQL server, three connections on the embedded database)", async () => {
    let applied: number[];
    if (process.env.TEST_DATABASE_URL) {
      const results = await Promise.all([1, 2, 3].map(migrateProcess));
      for (const r of results) expect(r.code, r.output).toBe(0);
      applied = results.map((r) => Number(/\((\d+) new\)/.exec(r.output)?.[1]));
    } else {
      applied = await migrateConnections();
    }
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
