import { randomBytes } from "node:crypto";
import pg from "pg";

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
