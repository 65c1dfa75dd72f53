import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createReadStream, createWriteStream, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { destinationFaults, receiveBodyCut } from "../../destination-faults.ts";
import { sendDropboxError } from "../../errors.ts";
import type { DropboxAccount } from "../../state.ts";
import { type commit, commitJoined, type JoinedBlob } from "./commit.ts";
import {
  accountOf,
  BLOCK,
  contentHasher,
  DropboxBadInput,
  DropboxRouteError,
  dropboxState,
  ensureParents,
  lookupNotFound,
  MAX_REQUEST_BYTES,
  metadata,
  newId,
  pathKey,
  usedBytes,
} from "./common.ts";

const API = "/api.dropboxapi.com/2";
const CONTENT = "/content.dropboxapi.com/2";

type Handler = (
  account: DropboxAccount,
  arg: Record<string, unknown>,
  req: FastifyRequest,
  reply: FastifyReply,
) => unknown;

/**
 * An upload's body, written into a blob of its own as it arrives and hashed on the way, under
 * the control API's cuts (a cut mid-body stores nothing of it: its blob is removed).
 */
async function receiveBody(ctx: Ctx, req: FastifyRequest) {
  const blob = `dropbox-in-${randomBytes(12).toString("hex")}`;
  const hasher = contentHasher();
  const got = await receiveBodyCut(
    req.raw,
    { path: join(ctx.blobDir, blob), at: 0, onPiece: (p) => hasher.update(p) },
    MAX_REQUEST_BYTES,
    () => new DropboxRouteError("payload_too_large", { ".tag": "payload_too_large" }),
    destinationFaults(ctx, "dropbox"),
  ).catch((err) => {
    rmSync(join(ctx.blobDir, blob), { force: true });
    throw err;
  });
  const body: JoinedBlob = { blob, size: got.size, contentHash: hasher.digest() };
  return { body, cut: got.cut };
}

/** Drops the connection without an answer (a cut). */
function dropConnection(socket: FastifyRequest["raw"]["socket"], reply: FastifyReply) {
  socket.destroy();
  reply.hijack();
  return reply;
}

/** Dropbox's files API for an app folder: RPC calls on api., uploads and downloads on content. */
export function registerDropboxFiles(app: FastifyInstance, ctx: Ctx): void {
  const run = async (
    endpoint: string,
    req: FastifyRequest,
    reply: FastifyReply,
    arg: unknown,
    fn: Handler,
  ) => {
    const account = accountOf(ctx, req, reply);
    if (!account) return reply;
    if (!(await ctx.enter(req, reply, endpoint))) return reply;
    try {
      const out = await fn(account, (arg ?? {}) as Record<string, unknown>, req, reply);
      if (reply.sent) return reply;
      return reply.type("application/json").send(out === undefined ? "null" : JSON.stringify(out));
    } catch (err) {
      if (err instanceof DropboxRouteError)
        return sendDropboxError(reply, err.status, err.summary, err.error);
      if (err instanceof DropboxBadInput) {
        return reply
          .code(400)
          .type("text/plain")
          .send(
            `Error in call to API function "${endpoint.replace(/^dropbox\./, "")}": ${err.message}`,
          );
      }
      throw err;
    }
  };
  const rpc = (route: string, fn: Handler) =>
    app.post(`${API}/${route}`, (req, reply) => run(`dropbox.${route}`, req, reply, req.body, fn));

  rpc("users/get_current_account", (a) => ({
    account_id: a.accountId,
    email: a.email,
    name: { display_name: a.name },
    account_type: { ".tag": "basic" },
  }));
  rpc("users/get_space_usage", (a) => ({
    used: usedBytes(a),
    allocation: { ".tag": "individual", allocated: a.quotaBytes },
  }));
  rpc("files/get_metadata", (a, arg) => {
    const key = pathKey(a, arg.path);
    const e = account(a, key);
    return metadata(key, e);
  });
  rpc("files/create_folder_v2", (a, arg) => {
    const key = pathKey(a, arg.path);
    if (a.entries[key]) {
      throw new DropboxRouteError("path/conflict/folder", {
        ".tag": "path",
        path: { ".tag": "conflict", conflict: { ".tag": "folder" } },
      });
    }
    ensureParents(ctx, a, `${String(arg.path)}/x`);
    ctx.changed();
    return { metadata: metadata(key, a.entries[key]!) };
  });
  rpc("files/delete_v2", (a, arg) => {
    const key = pathKey(a, arg.path);
    const e = account(a, key);
    for (const [k, child] of Object.entries(a.entries)) {
      if (k === key || k.startsWith(`${key}/`)) {
        if (child.blob) rmSync(join(ctx.blobDir, child.blob), { force: true });
        delete a.entries[k];
      }
    }
    ctx.changed();
    return { metadata: metadata(key, e) };
  });
  const listing = (
    a: DropboxAccount,
    key: string,
    recursive: boolean,
    after: number,
    limit: number,
  ) => {
    const all = Object.entries(a.entries)
      .filter(([k]) => (key === "" ? true : k.startsWith(`${key}/`)))
      .filter(([k]) => recursive || !k.slice(key.length + 1).includes("/"))
      .sort(([x], [y]) => (x < y ? -1 : 1));
    const page = all.slice(after, after + limit);
    const cursor = Buffer.from(
      JSON.stringify({ key, recursive, after: after + page.length, limit }),
    ).toString("base64url");
    return {
      entries: page.map(([k, e]) => metadata(k, e)),
      cursor,
      has_more: after + page.length < all.length,
    };
  };
  rpc("files/list_folder", (a, arg) => {
    const key = pathKey(a, arg.path);
    if (key && a.entries[key]?.tag !== "folder") throw lookupNotFound();
    const limit = Math.min(Math.max(Number(arg.limit ?? 2000), 1), 2000);
    return listing(a, key, arg.recursive === true, 0, limit);
  });
  rpc("files/list_folder/continue", (a, arg) => {
    let c: { key: string; recursive: boolean; after: number; limit: number };
    try {
      c = JSON.parse(Buffer.from(String(arg.cursor), "base64url").toString());
    } catch {
      throw new DropboxRouteError("reset", { ".tag": "reset" });
    }
    return listing(a, c.key, c.recursive, c.after, c.limit);
  });

  function account(a: DropboxAccount, key: string) {
    const e = a.entries[key];
    if (!e) throw lookupNotFound();
    return e;
  }

  app.register(async (scope) => {
    scope.addContentTypeParser("*", (_req, _payload, done) => done(null));
    const content = (
      route: string,
      fn: (
        a: DropboxAccount,
        arg: Record<string, unknown>,
        body: JoinedBlob,
        reply: FastifyReply,
      ) => unknown,
    ) =>
      scope.post(`${CONTENT}/${route}`, async (req, reply) => {
        let arg: unknown;
        try {
          arg = JSON.parse(String(req.headers["dropbox-api-arg"] ?? "null"));
        } catch {
          return reply
            .code(400)
            .type("text/plain")
            .send(`Error in call to API function "${route}": could not decode input as JSON`);
        }
        return run(`dropbox.${route}`, req, reply, arg, async (a, parsed, r, rep) => {
          const socket = r.raw.socket;
          const { body, cut } = await receiveBody(ctx, r);
          // The body's blob becomes a session's part or a file's, else it goes (refused, cut).
          const received = join(ctx.blobDir, body.blob);
          try {
            if (cut === "mid") return dropConnection(socket, rep);
            const out = await fn(a, parsed, body, rep);
            return cut === "answer" ? dropConnection(socket, rep) : out;
          } catch (err) {
            rmSync(received, { force: true });
            throw err;
          } finally {
            if (cut === "mid") rmSync(received, { force: true });
          }
        });
      });
    const sessions = () => dropboxState(ctx).sessions;
    const sessionOf = (a: DropboxAccount, cursor: unknown) => {
      const c = (cursor ?? {}) as { session_id?: string; offset?: number };
      const s = sessions()[c.session_id ?? ""];
      if (!s || s.accountId !== a.accountId) {
        throw new DropboxRouteError("not_found", { ".tag": "not_found" });
      }
      return { s, offset: Number(c.offset) };
    };
    /** The body's blob becomes the session's part at `offset` (an empty body is dropped). */
    const append = (
      s: import("../../state.ts").DropboxSession,
      offset: number,
      body: JoinedBlob,
    ) => {
      if (s.closed) throw new DropboxRouteError("closed", { ".tag": "closed" });
      if (s.concurrent) {
        if (offset % BLOCK !== 0)
          throw new DropboxRouteError("concurrent_session_invalid_offset", {
            ".tag": "concurrent_session_invalid_offset",
          });
        if (body.size % BLOCK !== 0)
          throw new DropboxRouteError("concurrent_session_invalid_data_size", {
            ".tag": "concurrent_session_invalid_data_size",
          });
      } else if (offset !== s.size) {
        throw new DropboxRouteError("incorrect_offset", {
          ".tag": "incorrect_offset",
          correct_offset: s.size,
        });
      }
      if (body.size === 0) {
        rmSync(join(ctx.blobDir, body.blob), { force: true });
        return;
      }
      const blob = `dropbox-part-${s.id}-${offset}`;
      renameSync(join(ctx.blobDir, body.blob), join(ctx.blobDir, blob));
      s.chunks[String(offset)] = blob;
      s.size = s.concurrent ? Math.max(s.size, offset + body.size) : s.size + body.size;
      ctx.changed();
    };
    /** The session's chunks joined into a new blob, streamed and hashed on the way. */
    const assemble = async (s: import("../../state.ts").DropboxSession): Promise<JoinedBlob> => {
      const offsets = Object.keys(s.chunks)
        .map(Number)
        .sort((x, y) => x - y);
      const blob = `dropbox-${randomBytes(12).toString("hex")}`;
      const out = createWriteStream(join(ctx.blobDir, blob));
      const hasher = contentHasher();
      let size = 0;
      try {
        for (const o of offsets) {
          for await (const piece of createReadStream(join(ctx.blobDir, s.chunks[String(o)]!))) {
            hasher.update(piece as Buffer);
            size += (piece as Buffer).length;
            if (!out.write(piece)) await once(out, "drain");
          }
        }
        out.end();
        await finished(out);
      } catch (err) {
        out.destroy();
        rmSync(join(ctx.blobDir, blob), { force: true });
        throw err;
      }
      return { blob, size, contentHash: hasher.digest() };
    };
    const drop = (s: import("../../state.ts").DropboxSession) => {
      for (const blob of Object.values(s.chunks)) rmSync(join(ctx.blobDir, blob), { force: true });
      delete sessions()[s.id];
      ctx.changed();
    };

    content("files/upload", (a, arg, body) => commitJoined(ctx, a, body, arg, arg.content_hash));
    // Each call's content_hash is that of the bytes the call brings (start's, append_v2's and
    // finish's alike, as Dropbox documents them), not the whole file's: a mismatch keeps none of them.
    const checkCallHash = (arg: Record<string, unknown>, body: JoinedBlob) => {
      if (typeof arg.content_hash === "string" && arg.content_hash !== body.contentHash) {
        throw new DropboxRouteError("content_hash_mismatch", { ".tag": "content_hash_mismatch" });
      }
    };
    content("files/upload_session/start", (a, arg, body) => {
      const concurrent =
        (arg.session_type as { ".tag"?: string } | undefined)?.[".tag"] === "concurrent";
      if (concurrent && body.size > 0) {
        throw new DropboxRouteError("concurrent_session_data_not_allowed", {
          ".tag": "concurrent_session_data_not_allowed",
        });
      }
      checkCallHash(arg, body);
      const s = {
        id: newId("pid_upload_session:"),
        accountId: a.accountId,
        concurrent,
        closed: false,
        chunks: {},
        size: 0,
        createdAt: ctx.now(),
      };
      sessions()[s.id] = s;
      append(s, 0, body);
      s.closed = arg.close === true;
      ctx.changed();
      return { session_id: s.id };
    });
    content("files/upload_session/append_v2", (a, arg, body) => {
      const { s, offset } = sessionOf(a, arg.cursor);
      checkCallHash(arg, body);
      append(s, offset, body);
      if (arg.close === true) s.closed = true;
      ctx.changed();
      return null;
    });
    content("files/upload_session/finish", async (a, arg, body) => {
      const { s, offset } = sessionOf(a, arg.cursor);
      checkCallHash(arg, body);
      if (body.size > 0) append(s, offset, body);
      else rmSync(join(ctx.blobDir, body.blob), { force: true });
      if (body.size === 0 && !s.concurrent && offset !== s.size) {
        throw new DropboxRouteError("lookup_failed/incorrect_offset", {
          ".tag": "lookup_failed",
          lookup_failed: { ".tag": "incorrect_offset", correct_offset: s.size },
        });
      }
      const whole = await assemble(s);
      if (sessions()[s.id] !== s) {
        // Finished or gone meanwhile (another request).
        rmSync(join(ctx.blobDir, whole.blob), { force: true });
        throw new DropboxRouteError("not_found", { ".tag": "not_found" });
      }
      let file: ReturnType<typeof commit>;
      try {
        file = commitJoined(ctx, a, whole, (arg.commit ?? {}) as Record<string, unknown>);
      } catch (err) {
        // A write that fails (a conflict, a full Dropbox) keeps the session and what it holds,
        // as Dropbox does: its error names the session, to finish again with an empty body.
        const e = err instanceof DropboxRouteError ? (err.error as Record<string, unknown>) : null;
        if (e && "upload_session_id" in e) e.upload_session_id = s.id;
        throw err;
      }
      drop(s);
      return file;
    });
    scope.post(`${CONTENT}/files/download`, async (req, reply) => {
      let arg: unknown;
      try {
        arg = JSON.parse(
          String(
            req.headers["dropbox-api-arg"] ?? (req.query as Record<string, string>).arg ?? "null",
          ),
        );
      } catch {
        return reply
          .code(400)
          .type("text/plain")
          .send(`Error in call to API function "files/download": could not decode input as JSON`);
      }
      return run("dropbox.files/download", req, reply, arg, (a, parsed, _r, rep) => {
        const key = pathKey(a, parsed.path);
        const e = account(a, key);
        if (e.tag !== "file" || !e.blob)
          throw new DropboxRouteError("path/not_file", {
            ".tag": "path",
            path: { ".tag": "not_file" },
          });
        return rep
          .header(
            "dropbox-api-result",
            JSON.stringify(metadata(key, e)).replace(
              /[\u007f-\uffff]/g,
              (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
            ),
          )
          .type("application/octet-stream")
          .send(readFileSync(join(ctx.blobDir, e.blob)));
      });
    });
  });
}
