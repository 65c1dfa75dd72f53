import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema.ts";

// int8 (bigint, count(*)) as JS numbers: our counts and byte sizes stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  pool: pg.Pool;
  db: Db;
  close(): Promise<void>;
}

export function connectDatabase(options: {
  url: string;
  max?: number;
  /** How long a checkout waits for a free connection before it fails (ms; 0 waits forever). */
  checkoutTimeoutMs?: number;
}): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    ...(options.checkoutTimeoutMs ? { connectionTimeoutMillis: options.checkoutTimeoutMs } : {}),
  });
  // An idle client that loses its server must not crash the process.
  pool.on("error", () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    pool,
    db,
    async close() {
      await db.destroy();
    },
  };
}
