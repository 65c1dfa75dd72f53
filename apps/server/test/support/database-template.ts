import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { TestProject } from "vitest/node";
import type { AppContext } from "../../src/context.ts";
import { connectDatabase } from "../../src/db/database.ts";
import { PGLITE_OPTIONS } from "../../src/db/embedded.ts";
import { migrate } from "../../src/db/migrate.ts";
import { serveWire } from "../../src/db/pglite-wire.ts";
import { jobRegistry } from "../../src/job-registry.ts";
import { createJobQueue } from "../../src/jobs/queue.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** A file holding a migrated embedded database (PGlite's dumpDataDir), or "" for none. */
    pgliteTemplate: string;
  }
}

/**
 * Global set-up of the embedded project: one database migrated and with the queue's schema and
 * queues, copied by every test file's fresh database (support/database.ts) instead of each
 * running initdb, the migrations and pg-boss's schema again (about 1 s of CPU per app).
 */
export default async function setup(project: TestProject) {
  const db = await PGlite.create(PGLITE_OPTIONS);
  const server = await serveWire({ db, host: "127.0.0.1", port: 0, maxConnections: 8 });
  const url = `postgres://postgres@${server.address}/postgres`;
  const handle = connectDatabase({ url, max: 2 });
  await migrate(handle.pool);
  const queue = createJobQueue<AppContext>({
    connectionString: url,
    schema: "pgboss",
    jobs: jobRegistry,
  });
  await queue.start();
  await queue.stop({ graceMs: 0, unwindMs: 0 });
  await handle.close();
  await server.close();
  const file = join(tmpdir(), `keepsake-pglite-template-${process.pid}.tar`);
  writeFileSync(file, new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer()));
  await db.close();
  project.provide("pgliteTemplate", file);
  return () => rmSync(file, { force: true });
}
