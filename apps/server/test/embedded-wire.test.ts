import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../src/db/embedded.ts";

// The embedded database is one PGlite session shared by every connection of every process on
// its data directory. These tests speak to it the way the product does (node-postgres, extended
// protocol with unnamed statements and portals) and check that each connection gets its own
// answers, whatever the others are doing at the same time.

let embedded: EmbeddedPostgres;

beforeAll(async () => {
  embedded = await startEmbeddedPostgres({ maxConnections: 64 });
  const c = new pg.Client({ connectionString: embedded.url });
  await c.connect();
  await c.query("CREATE TABLE wire_rows (id int PRIMARY KEY, owner int NOT NULL, label text)");
  await c.query(
    "INSERT INTO wire_rows SELECT g, g % 8, 'row ' || g FROM generate_series(1, 400) AS g",
  );
  await c.end();
});

afterAll(async () => {
  await embedded?.close();
});

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: embedded.url });
  c.on("error", () => {});
  await c.connect();
  return c;
}

describe("the embedded database's socket", () => {
  it("answers every connection with its own rows while 8 connections, some in transactions, run different parameterized queries at once", async () => {
    const rounds = 300;
    const workers = 8;
    const failures: string[] = [];
    let checked = 0;

    async function work(n: number) {
      const c = await client();
      try {
        for (let round = 0; round < rounds; round++) {
          const id = ((n * 977 + round * 31) % 400) + 1;
          const inTransaction = (n + round) % 3 === 0;
          if (inTransaction) await c.query("BEGIN");
          // Three shapes of statement with different parameter counts, so a Bind that lands on
          // another connection's Parse is caught as an error or a wrong row.
          if (round % 3 === 0) {
            const r = await c.query("SELECT id, label FROM wire_rows WHERE id = $1", [id]);
            if (r.rows.length !== 1 || r.rows[0].id !== id || r.rows[0].label !== `row ${id}`)
              failures.push(`one row ${id}: ${JSON.stringify(r.rows)}`);
          } else if (round % 3 === 1) {
            const owner = id % 8;
            const r = await c.query(
              "SELECT count(*)::int AS n, $2::text AS tag FROM wire_rows WHERE owner = $1",
              [owner, `w${n}r${round}`],
            );
            if (r.rows[0]?.n !== 50 || r.rows[0]?.tag !== `w${n}r${round}`)
              failures.push(`count ${owner}: ${JSON.stringify(r.rows)}`);
          } else {
            const r = await c.query(
              "SELECT $1::int + $2::int + $3::int AS total, $4::text AS who",
              [n, round, id, `worker ${n}`],
            );
            if (r.rows[0]?.total !== n + round + id || r.rows[0]?.who !== `worker ${n}`)
              failures.push(`sum: ${JSON.stringify(r.rows)}`);
          }
          if (inTransaction) await c.query(round % 2 ? "COMMIT" : "ROLLBACK");
          checked++;
        }
      } catch (err) {
        failures.push(`worker ${n}: ${(err as Error).message}`);
      } finally {
        await c.end().catch(() => {});
      }
    }

    await Promise.all(Array.from({ length: workers }, (_, n) => work(n)));
    expect(failures.slice(0, 5)).toEqual([]);
    expect(checked).toBe(rounds * workers);
  }, 120_000);

  it("keeps a transaction's writes to its own connection until it commits, and rolls back a connection that drops mid-transaction", async () => {
    const a = await client();
    const b = await client();
    await a.query("BEGIN");
    await a.query("INSERT INTO wire_rows VALUES (1001, 1, 'uncommitted')");
    // b runs while a's transaction is open: it waits for a, and then must not see a's row
    // once a rolls back by dying.
    const seen = b.query("SELECT count(*)::int AS n FROM wire_rows WHERE id = 1001");
    const dead = a as unknown as { connection: { stream: { destroy(): void } } };
    dead.connection.stream.destroy();
    expect((await seen).rows[0].n).toBe(0);
    await b.end();
  });

  it("recovers after errors in the middle of a pipeline and a connection that dies between Parse and Sync", async () => {
    const c = await client();
    await expect(c.query("SELECT $1::int AS n", ["not a number"])).rejects.toThrow(/invalid input/);
    await expect(c.query("SELECT * FROM no_such_table WHERE id = $1", [1])).rejects.toThrow(
      /does not exist/,
    );
    expect((await c.query("SELECT $1::int + 1 AS n", [41])).rows[0].n).toBe(42);
    await c.query("BEGIN");
    await expect(c.query("SELECT 1/0")).rejects.toThrow(/division by zero/);
    await expect(c.query("SELECT 1")).rejects.toThrow(/aborted/);
    await c.query("ROLLBACK");
    expect((await c.query("SELECT 2 AS n")).rows[0].n).toBe(2);
    await c.end();

    // A raw client that sends Parse and Bind, then hangs up before Sync: the session must be
    // handed on clean, not left mid-message for the next connection.
    const { connect } = await import("node:net");
    const { hostname, port } = new URL(embedded.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => {
        const startup = startupMessage("postgres", "postgres");
        socket.write(startup);
      });
      socket.once("error", reject);
      socket.once("data", () => {
        // After authentication: Parse of an unnamed statement, then close without Sync.
        socket.write(parseMessage("SELECT $1::int AS hung"));
        socket.end(() => resolve());
      });
    });
    const d = await client();
    expect((await d.query("SELECT $1::text AS who, $2::int AS n", ["d", 7])).rows[0]).toEqual({
      who: "d",
      n: 7,
    });
    await d.end();
  });

  it("delivers a NOTIFY to the connections that LISTEN for its channel, and to no other", async () => {
    const listener = await client();
    const other = await client();
    const sender = await client();
    const heard: string[] = [];
    const misdelivered: string[] = [];
    listener.on("notification", (n) => heard.push(`${n.channel}:${n.payload}`));
    other.on("notification", (n) => misdelivered.push(`other ${n.channel}`));
    sender.on("notification", (n) => misdelivered.push(`sender ${n.channel}`));
    await listener.query('LISTEN "Wake.Me"');
    await other.query("LISTEN unrelated");
    await sender.query("SELECT pg_notify($1, $2)", ["Wake.Me", "first"]);
    await sender.query("BEGIN");
    await sender.query(`NOTIFY "Wake.Me", 'second'`);
    await sender.query("COMMIT");
    await expect.poll(() => heard).toEqual(["Wake.Me:first", "Wake.Me:second"]);
    await listener.query('UNLISTEN "Wake.Me"');
    await sender.query("SELECT pg_notify('Wake.Me', 'third')");
    // The listener answers a query after the NOTIFY was committed: had it been routed there,
    // it would have arrived first.
    await listener.query("SELECT 1");
    expect(heard).toEqual(["Wake.Me:first", "Wake.Me:second"]);
    expect(misdelivered).toEqual([]);
    await Promise.all([listener.end(), other.end(), sender.end()]);
  });

  it("makes exactly one of three processes starting at once on one data directory its owner; the others share its socket", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keepsake-owner-"));
    const embeddedTs = fileURLToPath(new URL("../src/db/embedded.ts", import.meta.url));
    // Each process opens the database, creates its own table, then (told to go on) counts the
    // tables every process created, and stops when told to.
    const script = `
      import { createInterface } from "node:readline";
      import pg from "pg";
      const { startEmbeddedPostgres } = await import(${JSON.stringify(embeddedTs)});
      const e = await startEmbeddedPostgres({ dataDir: process.argv[1] });
      const c = new pg.Client({ connectionString: e.url });
      await c.connect();
      await c.query("CREATE TABLE owner_probe_" + process.argv[2] + " (id int)");
      console.log("ready " + e.owner);
      const lines = createInterface({ input: process.stdin });
      for await (const line of lines) {
        if (line === "count") {
          const r = await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'owner_probe_%'");
          console.log("count " + r.rows[0].n);
        } else break;
      }
      await c.end();
      await e.close();`;
    const children = [0, 1, 2].map((n) =>
      spawn(
        process.execPath,
        ["--input-type=module", "-e", script, join(dir, "pglite"), String(n)],
        {
          cwd: fileURLToPath(new URL("..", import.meta.url)),
          stdio: ["pipe", "pipe", "inherit"],
        },
      ),
    );
    const said = children.map((child) => {
      const lines: string[] = [];
      child.stdout.on("data", (d) => lines.push(...String(d).trim().split("\n")));
      return lines;
    });
    const heard = (n: number, prefix: string) =>
      expect.poll(() => said[n]?.find((l) => l.startsWith(prefix)), { timeout: 60_000 });
    try {
      for (const n of [0, 1, 2]) await heard(n, "ready").toBeDefined();
      const owners = said.filter((lines) => lines.includes("ready true"));
      expect(owners).toHaveLength(1);
      for (const [n, child] of children.entries()) {
        child.stdin.write("count\n");
        await heard(n, "count").toBe("count 3");
      }
      // Guests stop first, then the owner.
      const order = [...children].sort(
        (a, b) =>
          Number(said[children.indexOf(a)]?.includes("ready true")) -
          Number(said[children.indexOf(b)]?.includes("ready true")),
      );
      for (const child of order) {
        const exited = new Promise((r) => child.once("exit", r));
        child.stdin.end("stop\n");
        await exited;
      }
    } finally {
      for (const child of children) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

function startupMessage(user: string, database: string): Buffer {
  const params = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + params.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, params]);
}

function parseMessage(sql: string): Buffer {
  const body = Buffer.concat([Buffer.from(`\0${sql}\0`), Buffer.from([0, 0])]);
  const head = Buffer.alloc(5);
  head.write("P", 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}
