import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { serveWire } from "./pglite-wire.ts";

export interface EmbeddedPostgres {
  /** A postgres:// URL on a loopback port that speaks the wire protocol. */
  url: string;
  /** False when another process owns the files and this one connects through its socket. */
  owner: boolean;
  close(): Promise<void>;
}

/** Beside the data folder, not inside it: PostgreSQL owns what is inside. */
const advertFile = (dataDir: string) => `${dataDir.replace(/\/+$/, "")}.socket.json`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.setTimeout(2000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

interface Advert {
  pid: number;
  /** Set once the owner's socket listens. */
  url?: string;
}

function readAdvert(file: string): Advert | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Advert;
  } catch {
    return null;
  }
}

/** Creates the advert only when none exists: the one atomic step that makes an owner. */
function claim(file: string): boolean {
  try {
    writeFileSync(file, JSON.stringify({ pid: process.pid }), { flag: "wx", mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

/** Removes an advert left by an owner that is gone, unless another process replaced it. */
function dropStale(file: string, seen: string): void {
  try {
    if (readFileSync(file, "utf8") === seen) rmSync(file, { force: true });
  } catch {}
}

/**
 * Makes this process the owner of the files under `dataDir` (null), or finds the socket of the
 * process that owns them. Processes starting together agree on one owner: the first to create
 * the advert; the others wait until its socket answers. An advert whose process died, or whose
 * socket stopped answering, is taken over.
 */
async function ownOrJoin(dataDir: string): Promise<string | null> {
  const file = advertFile(dataDir);
  const deadline = Date.now() + 60_000;
  let doubtSince: number | null = null;
  for (;;) {
    if (claim(file)) return null;
    let seen = "";
    try {
      seen = readFileSync(file, "utf8");
    } catch {}
    const advert = readAdvert(file);
    if (advert?.url && alive(advert.pid) && (await answers(advert.url))) return advert.url;
    // A dead owner's advert is taken over at once. A live owner without a socket yet is starting:
    // wait for it, never take its files. An unreadable advert (being written) or a socket that
    // stopped listening (the owner stopping, or its pid reused) is taken over after 2 s.
    const dead = advert !== null && !alive(advert.pid);
    const starting = advert !== null && !dead && !advert.url;
    doubtSince = starting ? null : (doubtSince ?? Date.now());
    const doubtful = doubtSince !== null && Date.now() - doubtSince > 2_000;
    if (dead || doubtful) {
      dropStale(file, seen);
      doubtSince = null;
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`The embedded database under ${dataDir} is held by process ${advert?.pid}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts PGlite (file-backed under `dataDir`, or in memory when `dataDir` is undefined)
 * behind a loopback socket, so the application always talks to PostgreSQL through `pg`.
 * The socket server (`pglite-wire.ts`) gives the one PGlite session to one connection at a time,
 * from its first message until the session is idle again.
 *
 * PGlite's files belong to one process. The owner advertises its socket in `dataDir`, and
 * another process on the same `dataDir` (a worker, the CLI) connects through it instead of
 * opening the files a second time.
 */
export async function startEmbeddedPostgres(options: {
  dataDir?: string;
  maxConnections?: number;
  /**
   * In memory only: start from this copy of a database's files (PGlite's `dumpDataDir`)
   * instead of an empty one, skipping initdb (the server tests start from a migrated copy).
   */
  from?: Blob;
}): Promise<EmbeddedPostgres> {
  const { dataDir } = options;
  const advert = dataDir ? advertFile(dataDir) : null;
  if (dataDir && advert) {
    mkdirSync(dataDir, { recursive: true });
    const shared = await ownOrJoin(dataDir);
    if (shared) return { url: shared, owner: false, close: async () => {} };
  }
  try {
    return await own(dataDir, advert, options.maxConnections ?? 32, options.from);
  } catch (err) {
    if (advert) rmSync(advert, { force: true });
    throw err;
  }
}

/**
 * PostgreSQL's memory settings for the embedded database, which lives in this process's WASM
 * heap (a heap that grows and never shrinks): PostgreSQL's defaults (shared_buffers 128 MB,
 * wal_buffers 4 MB) size a server, not the one session of a small set-up. Applied to initdb too,
 * whose temporary instance otherwise grows its heap to ~570 MB on a first start (issue 27,
 * measured with bench:rss). Pages not in shared_buffers are read from the OS's file cache.
 */
const SMALL_MEMORY = ["-c", "shared_buffers=16MB", "-c", "wal_buffers=512kB"];

/** How Keepsake creates every PGlite: its extension (pg_trgm, for the caption search's index, migration 0701) and memory settings. */
export const PGLITE_OPTIONS = {
  extensions: { pg_trgm },
  startParams: [...PGlite.defaultStartParams, ...SMALL_MEMORY],
  initDbStartParams: SMALL_MEMORY,
};

async function own(
  dataDir: string | undefined,
  advert: string | null,
  maxConnections: number,
  from: Blob | undefined,
): Promise<EmbeddedPostgres> {
  const db = await PGlite.create(
    dataDir
      ? { dataDir, ...PGLITE_OPTIONS }
      : { ...PGLITE_OPTIONS, ...(from ? { loadDataDir: from } : {}) },
  );
  const server = await serveWire({
    db,
    host: "127.0.0.1",
    port: 0,
    maxConnections,
  });
  const url = `postgres://postgres@${server.address}/postgres`;
  if (advert) writeFileSync(advert, JSON.stringify({ pid: process.pid, url }), { mode: 0o600 });
  return {
    url,
    owner: true,
    async close() {
      if (advert) rmSync(advert, { force: true });
      await server.close();
      await db.close();
    },
  };
}
