import pg from "pg";
import { pendingMigrations } from "./migrate.ts";

/** What one probe of the database found. */
export type DatabaseProbe =
  | { ok: true; pendingMigrations: string[] }
  /** `reason` is for the log (it may name hosts); clients see only that the database is away. */
  | { ok: false; reason: string };

export interface DatabaseHealth {
  /**
   * Asks the database (its migrations table) over a connection of its own, outside the app's
   * pool: answers within `timeoutMs` however busy the pool or the database is. Probes asked
   * for while one runs share it.
   */
  probe(): Promise<DatabaseProbe>;
  /**
   * How long the database has failed every probe (ms since the first failure after the last
   * success); 0 while the last probe succeeded or none ran.
   */
  failingForMs(): number;
  /** Probes failed in a row since the last success. */
  failuresInARow(): number;
  close(): Promise<void>;
}

/**
 * The health probe of an API process (readiness and liveness). It has its own one-connection
 * pool on the same database as `pool` (same address, search_path): a pool exhausted by slow
 * requests does not make the database look gone, and a probe never waits behind them. A probe
 * gives up after `timeoutMs`: the connection is bounded by `connectionTimeoutMillis`, the query by
 * `statement_timeout` (the server cancels it) and `query_timeout` (the client stops waiting), and
 * the whole by a timer; a connection whose probe failed is closed, the next one opens anew.
 */
export function createDatabaseHealth(
  pool: pg.Pool,
  options: { timeoutMs?: number; now?: () => number } = {},
): DatabaseHealth {
  const timeoutMs = options.timeoutMs ?? 1500;
  const now = options.now ?? Date.now;
  const { connectionString, options: pgOptions } = pool.options;
  const probes = new pg.Pool({
    ...(connectionString ? { connectionString } : {}),
    ...(pgOptions ? { options: pgOptions } : {}),
    max: 1,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
    application_name: "keepsake-health",
  });
  // A probe connection the server drops while idle must not crash the process.
  probes.on("error", () => {});
  let running: Promise<DatabaseProbe> | null = null;
  let failingSince: number | null = null;
  let failures = 0;

  async function ask(): Promise<DatabaseProbe> {
    let client: pg.PoolClient;
    try {
      client = await probes.connect();
    } catch (err) {
      return { ok: false, reason: reason(err) };
    }
    try {
      const pending = await pendingMigrations(client);
      client.release();
      return { ok: true, pendingMigrations: pending };
    } catch (err) {
      // Closed rather than reused: it may still be waiting for the answer it gave up on.
      client.release(err instanceof Error ? err : true);
      return { ok: false, reason: reason(err) };
    }
  }

  async function bounded(): Promise<DatabaseProbe> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<DatabaseProbe>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, reason: `no answer in ${timeoutMs + 250} ms` }),
        timeoutMs + 250,
      );
    });
    try {
      return await Promise.race([ask(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    probe() {
      running ??= bounded().then((result) => {
        running = null;
        if (result.ok) {
          failingSince = null;
          failures = 0;
        } else {
          failingSince ??= now();
          failures++;
        }
        return result;
      });
      return running;
    },
    failingForMs: () => (failingSince === null ? 0 : now() - failingSince),
    failuresInARow: () => failures,
    async close() {
      await probes.end().catch(() => {});
    },
  };
}

function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > 120 ? `${message.slice(0, 117)}...` : message;
}
