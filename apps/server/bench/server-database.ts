import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../src/db/embedded.ts";

export interface ServerDatabase {
  /** e.g. keepsake_bench_1a2b3c4d */
  name: string;
  /** The server's URL with the new database's name. */
  url: string;
  /** Drops the database (and closes any connection still on it). */
  drop(): Promise<void>;
}

async function admin<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A new, empty database on the PostgreSQL server at `serverUrl`, for one benchmark run. */
export async function createServerDatabase(
  serverUrl: string,
  prefix = "keepsake_bench",
): Promise<ServerDatabase> {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      await admin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * A benchmark run's database, whole (a worker process joins it as `npm run worker` would): a new
 * one on the server at `serverUrl` when given (`name`), else an embedded PostgreSQL of its own.
 */
export async function benchDatabase(
  serverUrl: string | undefined,
  prefix: string,
): Promise<{ url: string; close(): Promise<void>; name: string | null }> {
  if (serverUrl) {
    const server = await createServerDatabase(serverUrl, prefix);
    return { url: server.url, close: server.drop, name: server.name };
  }
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const embedded = await startEmbeddedPostgres({ dataDir });
  return {
    url: embedded.url,
    name: null,
    close: async () => {
      await embedded.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
