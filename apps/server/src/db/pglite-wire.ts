import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";

/**
 * A PostgreSQL wire-protocol server in front of one PGlite instance.
 *
 * PGlite is a single backend session. Clients of a real server each have their own session, so
 * they freely interleave their messages: node-postgres sends Parse, Bind, Describe, Execute,
 * Sync for each query, with the unnamed statement and portal. Fed message by message into one
 * session, two clients' pipelines mix: one's Parse replaces the unnamed statement between the
 * other's Parse and Bind, and a connection reads rows meant for another (the fault of
 * `@electric-sql/pglite-socket` 0.2.x this replaces).
 *
 * Here a connection owns the session from its first message until the session says it is idle
 * again: a ReadyForQuery with status `I` (not in a transaction). Until then every other
 * connection waits its turn, in order of arrival. A connection that goes away while it owns the
 * session (mid-pipeline, or inside a transaction) has its work ended — Sync, then ROLLBACK —
 * before the next one gets the session, so nobody inherits half a statement or a transaction.
 */
export interface WireServer {
  /** `host:port` of the listening socket. */
  address: string;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

const SYNC = Buffer.from([0x53, 0, 0, 0, 4]); // 'S'
const ROLLBACK = query("ROLLBACK");

function query(sql: string): Buffer {
  const body = Buffer.from(`${sql}\0`);
  const head = Buffer.alloc(5);
  head.write("Q", 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

/** An ErrorResponse a client reports as a normal error. */
function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`);
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/** The status of the last ReadyForQuery among complete backend messages, if any. */
export function lastReadyStatus(out: Uint8Array): string | null {
  let status: string | null = null;
  let at = 0;
  while (at + 5 <= out.length) {
    const length = readLength(out, at + 1);
    if (out[at] === 0x5a /* 'Z' */ && length === 5 && at + 5 < out.length) {
      status = String.fromCharCode(out[at + 5] as number);
    }
    at += 1 + length;
  }
  return status;
}

/** First come, first served ownership of the one session. */
class SessionTurns {
  private owner: Connection | null = null;
  private readonly waiting: Array<{ who: Connection; go: () => void }> = [];

  take(who: Connection): Promise<void> {
    if (this.owner === who) return Promise.resolve();
    if (!this.owner) {
      this.owner = who;
      return Promise.resolve();
    }
    return new Promise((go) => this.waiting.push({ who, go }));
  }

  owns(who: Connection): boolean {
    return this.owner === who;
  }

  give(who: Connection): void {
    if (this.owner !== who) return;
    const next = this.waiting.shift();
    this.owner = next?.who ?? null;
    next?.go();
  }
}

/**
 * LISTEN is per connection on a real server; here the one session listens for everyone, and
 * PostgreSQL hands the notifications to whichever connection commits. They are taken out of
 * that answer and sent to the connections that asked for the channel, so a worker process on
 * the same data directory is woken by a job another process sends, as on a server.
 */
class Notifications {
  private readonly channels = new Map<string, Set<Connection>>();

  /** Notes `LISTEN`/`UNLISTEN` in a Query ('Q') or Parse ('P') message. */
  watch(who: Connection, frame: Buffer): void {
    const type = frame[0];
    if (type !== 0x51 && type !== 0x50) return;
    let start = 5;
    if (type === 0x50) start = frame.indexOf(0, 5) + 1; // after the statement name
    const end = frame.indexOf(0, start);
    const sql = frame.toString("utf8", start, end < 0 ? frame.length : end);
    for (const m of sql.matchAll(
      /(?:^|;)\s*(UN)?LISTEN\s+(?:"((?:[^"]|"")+)"|([A-Za-z_][\w$]*)|(\*))/gi,
    )) {
      const channel = m[2] !== undefined ? m[2].replaceAll('""', '"') : m[3]?.toLowerCase();
      if (m[1]) {
        for (const [name, set] of this.channels) if (m[4] || name === channel) set.delete(who);
      } else if (channel) {
        const set = this.channels.get(channel) ?? new Set();
        set.add(who);
        this.channels.set(channel, set);
      }
    }
  }

  forget(who: Connection): void {
    for (const set of this.channels.values()) set.delete(who);
  }

  /**
   * `out` without its NotificationResponse messages, each sent to its channel's listeners
   * (`from` keeps the ones it listens for in place).
   */
  route(out: Uint8Array, from: Connection): Uint8Array {
    const kept: Uint8Array[] = [];
    let at = 0;
    let copied = 0;
    while (at + 5 <= out.length) {
      const size = 1 + readLength(out, at + 1);
      if (out[at] === 0x41 /* 'A' */) {
        const message = out.subarray(at, at + size);
        const nameStart = at + 9; // type, length, sender's pid
        const nameEnd = out.indexOf(0, nameStart);
        const channel = Buffer.from(out.subarray(nameStart, nameEnd)).toString("utf8");
        const listeners = this.channels.get(channel);
        if (!listeners?.has(from)) {
          kept.push(out.subarray(copied, at));
          copied = at + size;
        }
        for (const c of listeners ?? []) if (c !== from) c.send(message);
      }
      at += size;
    }
    if (copied === 0) return out;
    kept.push(out.subarray(copied));
    return Buffer.concat(kept);
  }
}

function readLength(out: Uint8Array, at: number): number {
  return (
    ((out[at] as number) << 24) |
    ((out[at + 1] as number) << 16) |
    ((out[at + 2] as number) << 8) |
    (out[at + 3] as number)
  );
}

class Connection {
  private buffered: Buffer = Buffer.alloc(0);
  private started = false;
  private pumping = false;
  private closed = false;

  private readonly socket: Socket;
  private readonly db: PGlite;
  private readonly turns: SessionTurns;
  private readonly notifications: Notifications;
  private readonly onGone: (c: Connection) => void;
  private readonly onError: (err: Error) => void;

  constructor(
    socket: Socket,
    db: PGlite,
    turns: SessionTurns,
    notifications: Notifications,
    onGone: (c: Connection) => void,
    onError: (err: Error) => void,
  ) {
    this.socket = socket;
    this.db = db;
    this.turns = turns;
    this.notifications = notifications;
    this.onGone = onGone;
    this.onError = onError;
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
      void this.pump();
    });
    socket.on("error", () => this.end());
    socket.on("close", () => this.end());
  }

  /** The next complete frame, or null when more bytes are needed. */
  private nextFrame(): Buffer | null {
    const b = this.buffered;
    const headed = this.started ? 1 : 0;
    if (b.length < headed + 4) return null;
    const size = headed + b.readInt32BE(headed);
    if (size < headed + 4) {
      this.fail("08P01", "invalid message length");
      return null;
    }
    if (b.length < size) return null;
    this.buffered = b.subarray(size);
    return b.subarray(0, size);
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (let frame = this.nextFrame(); frame && !this.closed; frame = this.nextFrame()) {
        await this.handle(frame);
      }
    } catch (err) {
      this.onError(err as Error);
      this.fail("XX000", `embedded database: ${(err as Error).message}`);
    } finally {
      this.pumping = false;
      if (this.closed) await this.release();
    }
  }

  private async handle(frame: Buffer): Promise<void> {
    if (!this.started) {
      const code = frame.readInt32BE(4);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        this.socket.write("N");
        return;
      }
      if (code === CANCEL_REQUEST) {
        // Cancelling would need a second session; the request is refused by closing, as a
        // server does for an unknown key.
        this.socket.destroy();
        return;
      }
      if (code !== PROTOCOL_3) {
        this.fail("0A000", "unsupported frontend protocol");
        return;
      }
      this.started = true;
    } else if (frame[0] === 0x58 /* 'X' Terminate */) {
      this.socket.end();
      await this.end();
      return;
    }
    await this.turns.take(this);
    if (this.closed) return;
    this.notifications.watch(this, frame);
    const out = this.notifications.route(
      await this.db.runExclusive(() => this.db.execProtocolRaw(frame)),
      this,
    );
    this.send(out);
    // The session is handed on only when it is idle: after a Sync or a simple query outside a
    // transaction. Inside a transaction (T) or a failed one (E) this connection keeps it.
    if (lastReadyStatus(out) === "I") this.turns.give(this);
  }

  /** Writes whole backend messages to the client. */
  send(out: Uint8Array): void {
    if (out.length && !this.socket.destroyed) this.socket.write(out);
  }

  private fail(code: string, message: string): void {
    if (!this.socket.destroyed) this.socket.end(errorResponse(code, message));
    void this.end();
  }

  /** Ends the connection's work in the session, if it has any, and hands the session on. */
  private async release(): Promise<void> {
    if (!this.turns.owns(this)) return;
    try {
      const synced = await this.db.runExclusive(() => this.db.execProtocolRaw(SYNC));
      if (lastReadyStatus(synced) !== "I") {
        await this.db.runExclusive(() => this.db.execProtocolRaw(ROLLBACK));
      }
    } catch (err) {
      this.onError(err as Error);
    } finally {
      this.turns.give(this);
    }
  }

  async end(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.buffered = Buffer.alloc(0);
    this.socket.destroy();
    this.notifications.forget(this);
    this.onGone(this);
    // A frame in flight finishes first, and the pump then releases the session.
    if (!this.pumping) await this.release();
  }
}

export async function serveWire(options: {
  db: PGlite;
  host: string;
  port: number;
  maxConnections: number;
  onError?: (err: Error) => void;
}): Promise<WireServer> {
  const turns = new SessionTurns();
  const notifications = new Notifications();
  const connections = new Set<Connection>();
  const onError = options.onError ?? (() => {});
  const server: Server = createServer((socket) => {
    if (connections.size >= options.maxConnections) {
      socket.end(errorResponse("53300", "sorry, too many clients already"));
      return;
    }
    connections.add(
      new Connection(
        socket,
        options.db,
        turns,
        notifications,
        (c) => connections.delete(c),
        onError,
      ),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const bound = server.address();
  const port = typeof bound === "object" && bound ? bound.port : options.port;
  return {
    address: `${options.host}:${port}`,
    async close() {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...connections].map((c) => c.end()));
      await closing;
    },
  };
}
