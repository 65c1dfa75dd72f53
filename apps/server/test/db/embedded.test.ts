import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../../src/db/embedded.ts";

// The embedded database `npm start` runs: a real PostgreSQL under DATA_DIR, reached only
// through a Unix socket in a folder of its own, by password, as a role that is not a superuser;
// one server per DATA_DIR, which other Keepsake processes join.

const EMBEDDED = fileURLToPath(new URL("../../src/db/embedded.ts", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "keepsake-embedded-"));
  dirs.push(dir);
  return dir;
};

/**
 * Another Keepsake process on `dataDir`: starts (or joins) the embedded database, prints what it
 * found, runs `sql`, then waits for a line on stdin (or SIGTERM) and closes.
 */
function keepsakeProcess(dataDir: string, sql = "SELECT 1") {
  const script = `
    import pg from "pg";
    const { startEmbeddedPostgres } = await import(${JSON.stringify(EMBEDDED)});
    const e = await startEmbeddedPostgres({ dataDir: process.argv[1], durable: false });
    const c = new pg.Client({ connectionString: e.url });
    await c.connect();
    const { rows } = await c.query(process.argv[2]);
    await c.end();
    console.log(JSON.stringify({ owner: e.owner, pid: e.pid(), rows }));
    const close = async () => { await e.close(); console.log("closed"); process.exit(0); };
    process.on("SIGTERM", close);
    process.stdin.on("data", close);
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, dataDir, sql], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const line = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = output.split("\n").find((l) => pattern.test(l));
        if (m) return resolve(m);
        if (child.exitCode !== null) reject(new Error(`exited: ${output}`));
        else setTimeout(check, 20);
      };
      check();
    });
  return {
    child,
    started: async () =>
      JSON.parse(await line(/^\{/)) as { owner: boolean; pid: number; rows: unknown[] },
    closed: () => line(/^closed$/),
  };
}

const exited = (child: ChildProcess) =>
  new Promise<void>((r) => (child.exitCode !== null ? r() : child.once("exit", () => r())));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean | Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The socket inodes a process holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodes.add(m[1]);
    } catch {}
  }
  return inodes;
}

/** Inodes of every TCP socket listening on this machine (state 0A), IPv4 and IPv6. */
function tcpListeners(): Set<string> {
  const inodes = new Set<string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === "0A" && f[9]) inodes.add(f[9]);
    }
  }
  return inodes;
}

/** What the server asks a client that sends a start-up message and nothing else. */
function firstAnswer(socketDir: string, user: string): Promise<{ type: string; code: number }> {
  return new Promise((resolve, reject) => {
    const s = connect(join(socketDir, ".s.PGSQL.5432"));
    s.on("error", reject);
    s.on("connect", () => {
      const params = Buffer.from(`user\0${user}\0database\0keepsake\0\0`);
      const msg = Buffer.alloc(8 + params.length);
      msg.writeInt32BE(msg.length, 0);
      msg.writeInt32BE(196608, 4);
      params.copy(msg, 8);
      s.write(msg);
    });
    s.once("data", (d: Buffer) => {
      resolve({ type: String.fromCharCode(d[0] ?? 0), code: d.readInt32BE(5) });
      s.destroy();
    });
  });
}

describe("the embedded database", () => {
  let dataDir: string;
  let db: EmbeddedPostgres;
  const socketDir = () => new URL(db.url).searchParams.get("host") as string;
  const client = async (url = db.url) => {
    const c = new pg.Client({ connectionString: url });
    c.on("error", () => {});
    await c.connect();
    return c;
  };

  beforeAll(async () => {
    dataDir = tempDataDir();
    db = await startEmbeddedPostgres({ dataDir, durable: false });
  }, 120_000);
  afterAll(async () => {
    const pid = db?.pid();
    await db?.close();
    if (pid) expect(alive(pid)).toBe(false);
  });

  it("listens only on a Unix socket in a folder only its OS user may enter", async () => {
    expect(socketDir()).toBe(join(dataDir, "postgres-socket"));
    expect(statSync(socketDir()).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, "postgres-passwords.json")).mode & 0o777).toBe(0o600);
    const pid = db.pid() as number;
    const listening = tcpListeners();
    expect([...socketInodes(pid)].filter((i) => listening.has(i))).toEqual([]);
    const c = await client();
    expect((await c.query("SHOW listen_addresses")).rows[0].listen_addresses).toBe("");
    await c.end();
  });

  it("asks every client for its password (SCRAM), and refuses a wrong one", async () => {
    // R 10: AuthenticationSASL — no role is let in without proving its password.
    for (const user of ["keepsake", "postgres"]) {
      expect(await firstAnswer(socketDir(), user)).toEqual({ type: "R", code: 10 });
    }
    for (const url of [db.url, db.adminUrl]) {
      const u = new URL(url);
      u.password = "wrong";
      await expect(client(u.toString())).rejects.toMatchObject({ code: "28P01" });
    }
  });

  it("connects the app as a role that is not a superuser and cannot run programs", async () => {
    const c = await client();
    const me = await c.query(
      "SELECT current_user, usesuper FROM pg_user WHERE usename = current_user",
    );
    expect(me.rows[0]).toEqual({ current_user: "keepsake", usesuper: false });
    await expect(c.query("COPY (SELECT 1) TO PROGRAM 'true'")).rejects.toMatchObject({
      code: "42501",
    });
    await expect(c.query("ALTER SYSTEM SET fsync = off")).rejects.toMatchObject({ code: "42501" });
    await c.end();
  });

  it("cuts off a client idle in a transaction past the limit; the others carry on meanwhile", async () => {
    const setup = await client();
    await setup.query("CREATE TABLE IF NOT EXISTS turn (id int PRIMARY KEY, n int)");
    await setup.query("INSERT INTO turn VALUES (1, 0) ON CONFLICT DO NOTHING");
    const idle = await client();
    await idle.query("BEGIN");
    await idle.query("UPDATE turn SET n = n + 1 WHERE id = 1");
    const began = Date.now();
    // Another client reads and writes elsewhere at once, while the row stays locked.
    const other = await client();
    const t = Date.now();
    await other.query("SELECT count(*) FROM pg_class");
    await other.query("INSERT INTO turn VALUES (2, 0) ON CONFLICT DO NOTHING");
    expect(Date.now() - t).toBeLessThan(1000);
    // A writer of the same row waits only until the idle transaction is ended (5 s).
    await other.query("UPDATE turn SET n = n + 10 WHERE id = 1");
    const waited = Date.now() - began;
    expect(waited).toBeGreaterThan(4000);
    expect(waited).toBeLessThan(9000);
    await expect(idle.query("COMMIT")).rejects.toThrow();
    // The idle client's update was rolled back.
    expect((await other.query("SELECT n FROM turn WHERE id = 1")).rows[0].n).toBe(10);
    await Promise.all([setup.end(), other.end(), idle.end().catch(() => {})]);
  }, 20_000);

  it("is joined, not started again, by a second process on the same DATA_DIR", async () => {
    const second = keepsakeProcess(dataDir, "SELECT current_user AS u, 40 + 2 AS n");
    const found = await second.started();
    expect(found).toEqual({ owner: false, pid: db.pid(), rows: [{ u: "keepsake", n: 42 }] });
    second.child.stdin.write("close\n");
    await second.closed();
    await exited(second.child);
    // The guest leaving leaves the server running for its owner.
    const c = await client();
    expect((await c.query("SELECT 1 AS one")).rows[0].one).toBe(1);
    await c.end();
    expect(db.owner).toBe(true);
  }, 60_000);
});

describe("the embedded database's owner", () => {
  it("killed (SIGKILL): the next process adopts the server it left running, data intact; the last one out stops it", async () => {
    const dataDir = tempDataDir();
    const first = keepsakeProcess(
      dataDir,
      "CREATE TABLE kept AS SELECT 'still here' AS note; SELECT 1",
    );
    const { owner, pid } = await first.started();
    expect(owner).toBe(true);
    first.child.kill("SIGKILL");
    await exited(first.child);
    expect(alive(pid)).toBe(true);

    const next = await startEmbeddedPostgres({ dataDir, durable: false });
    try {
      expect(next.pid()).toBe(pid);
      await until(() => next.owner);
      const c = new pg.Client({ connectionString: next.url });
      await c.connect();
      expect((await c.query("SELECT note FROM kept")).rows).toEqual([{ note: "still here" }]);
      await c.end();
    } finally {
      await next.close();
    }
    expect(alive(pid)).toBe(false);
    // Started again from its files: a new server, the same data.
    const again = await startEmbeddedPostgres({ dataDir, durable: false });
    try {
      expect(again.owner).toBe(true);
      expect(again.pid()).not.toBe(pid);
      const c = new pg.Client({ connectionString: again.url });
      await c.connect();
      expect((await c.query("SELECT note FROM kept")).rows).toEqual([{ note: "still here" }]);
      await c.end();
    } finally {
      await again.close();
    }
  }, 120_000);

  it("stopping while another process uses the server hands it over instead of stopping it", async () => {
    const dataDir = tempDataDir();
    const first = keepsakeProcess(dataDir);
    const { owner, pid } = await first.started();
    expect(owner).toBe(true);
    let handedOver = false;
    const guest = await startEmbeddedPostgres({
      dataDir,
      durable: false,
      onOwner: () => (handedOver = true),
    });
    try {
      expect(guest.owner).toBe(false);
      first.child.kill("SIGTERM");
      await first.closed();
      await exited(first.child);
      await until(() => handedOver);
      expect(guest.owner).toBe(true);
      expect(alive(pid)).toBe(true);
      const c = new pg.Client({ connectionString: guest.url });
      await c.connect();
      expect((await c.query("SELECT 1 AS one")).rows[0].one).toBe(1);
      await c.end();
    } finally {
      await guest.close();
    }
    expect(alive(pid)).toBe(false);
  }, 120_000);
});
