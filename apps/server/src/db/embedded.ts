import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** The socket a live process advertises for the files under `dataDir`, if any. */
async function runningElsewhere(dataDir: string): Promise<string | null> {
  const file = advertFile(dataDir);
  if (!existsSync(file)) return null;
  try {
    const { pid, url } = JSON.parse(readFileSync(file, "utf8")) as { pid: number; url: string };
    if (pid !== process.pid && alive(pid) && (await answers(url))) return url;
  } catch {}
  return null;
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
}): Promise<EmbeddedPostgres> {
  const { dataDir } = options;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    const shared = await runningElsewhere(dataDir);
    if (shared) return { url: shared, owner: false, close: async () => {} };
  }
  // pg_trgm: the caption search's index (migration 0701).
  const extensions = { pg_trgm };
  const db = await PGlite.create(dataDir ? { dataDir, extensions } : { extensions });
  const server = await serveWire({
    db,
    host: "127.0.0.1",
    port: 0,
    maxConnections: options.maxConnections ?? 32,
  });
  const url = `postgres://postgres@${server.address}/postgres`;
  const advert = dataDir ? advertFile(dataDir) : null;
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
