import {
  closeSync,
  createWriteStream,
  existsSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { sendDriveError } from "../../errors.ts";
import type { TokenRecord } from "../../state.ts";
import { query } from "../../util.ts";
import { corruptIfAsked, md5File, storeBlob } from "./blobs.ts";
import { checkQuota, DriveError, newFileFromMetadata, renderFile } from "./resource.ts";

const CHUNK = 256 * 1024;

function parseContentRange(
  header: string | undefined,
):
  | { kind: "none" }
  | { kind: "query"; total?: number }
  | { kind: "chunk"; start: number; end: number; total?: number }
  | { kind: "bad" } {
  if (header === undefined) return { kind: "none" };
  const q = /^bytes \*\/(\d+|\*)$/.exec(header.trim());
  if (q) return { kind: "query", total: q[1] === "*" ? undefined : Number(q[1]) };
  const c = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim());
  if (!c) return { kind: "bad" };
  const start = Number(c[1]);
  const end = Number(c[2]);
  if (end < start) return { kind: "bad" };
  return { kind: "chunk", start, end, total: c[3] === "*" ? undefined : Number(c[3]) };
}

/**
 * `PUT` of a resumable upload session: a chunk, or a status query (`bytes *\/total`). Counted
 * in `ctx.chunkRequests` from its arrival to the end of its handling, so a test sees when the
 * requests a client gave up on (asleep in their latency) have found it gone.
 */
export function resumableChunk(ctx: Ctx) {
  const handle = chunkHandler(ctx);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const id = query(req).upload_id ?? "";
    ctx.chunkRequests.set(id, (ctx.chunkRequests.get(id) ?? 0) + 1);
    try {
      return await handle(req, reply);
    } finally {
      const left = (ctx.chunkRequests.get(id) ?? 1) - 1;
      if (left > 0) ctx.chunkRequests.set(id, left);
      else ctx.chunkRequests.delete(id);
    }
  };
}

function chunkHandler(ctx: Ctx) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (!(await ctx.enter(req, reply, "drive.upload.resumable.put"))) return reply;
    const q = query(req);
    const session = q.upload_id ? ctx.state.uploads[q.upload_id] : undefined;
    const drain = () => req.raw.resume();
    const socket = req.raw.socket;
    if (!session || session.expiresAt <= ctx.now()) {
      drain();
      if (session) delete ctx.state.uploads[session.id];
      return sendDriveError(
        reply,
        404,
        "notFound",
        "Upload session not found or expired. Start a new upload.",
      );
    }
    const user = ctx.state.googleUsers[session.ownerSub]!;
    const base = ctx.baseUrl(req);
    const fields = session.metadata.__fields as string | undefined;
    if (session.fileId) {
      drain();
      const file = ctx.state.driveFiles[session.fileId];
      if (!file)
        return sendDriveError(
          reply,
          404,
          "notFound",
          "Upload session not found or expired. Start a new upload.",
        );
      return reply.send(renderFile(base, file, user, fields));
    }
    const part = join(ctx.blobDir, `${session.id}.part`);
    const finish = async () => {
      const file = newFileFromMetadata(
        ctx,
        { user, token: { clientId: session.appClientId } as TokenRecord },
        session.metadata,
        session.contentType,
      );
      try {
        checkQuota(ctx, user, session.received);
      } catch (e) {
        rmSync(part, { force: true });
        delete ctx.state.uploads[session.id];
        throw e;
      }
      if (!existsSync(part)) await storeBlob(ctx, file, Buffer.alloc(0));
      else {
        file.size = statSync(part).size;
        if (ctx.corruptUploads > 0 && file.size > 0) {
          const fd = openSync(part, "r+");
          const first = Buffer.alloc(1);
          readSync(fd, first, 0, 1, 0);
          writeSync(fd, corruptIfAsked(ctx, first), 0, 1, 0);
          closeSync(fd);
        }
        file.md5 = await md5File(part);
        renameSync(part, join(ctx.blobDir, file.id));
        ctx.state.driveFiles[file.id] = file;
      }
      session.fileId = file.id;
      ctx.changed();
      return reply.code(200).send(renderFile(base, file, user, fields));
    };
    const incomplete = () => {
      if (session.received > 0) reply.header("range", `bytes=0-${session.received - 1}`);
      return reply.code(308).header("content-length", "0").send();
    };
    try {
      const range = parseContentRange(req.headers["content-range"]);
      const length = Number(req.headers["content-length"] ?? 0);
      if (range.kind === "bad") {
        drain();
        throw new DriveError(400, "badRequest", "Failed to parse Content-Range header.");
      }
      if (range.kind === "query") {
        drain();
        if (range.total !== undefined) {
          if (session.total !== undefined && session.total !== range.total) {
            throw new DriveError(
              400,
              "badRequest",
              "Content-Range total does not match the upload size.",
            );
          }
          session.total = range.total;
        }
        if (session.total !== undefined && session.received === session.total)
          return await finish();
        return incomplete();
      }
      const start = range.kind === "chunk" ? range.start : 0;
      const total = range.kind === "chunk" ? range.total : length;
      const chunkLength = range.kind === "chunk" ? range.end - range.start + 1 : length;
      if (
        range.kind === "chunk" &&
        req.headers["content-length"] !== undefined &&
        chunkLength !== length
      ) {
        drain();
        throw new DriveError(
          400,
          "badRequest",
          "Content-Range does not match the request body length.",
        );
      }
      if (total !== undefined && session.total !== undefined && total !== session.total) {
        drain();
        throw new DriveError(
          400,
          "badRequest",
          "Content-Range total does not match the upload size.",
        );
      }
      if (total !== undefined) session.total = total;
      if (start > session.received) {
        drain();
        throw new DriveError(
          400,
          "badRequest",
          `Invalid request. According to the Content-Range header, the upload offset is ${start} byte(s), which exceeds already uploaded size of ${session.received} byte(s).`,
        );
      }
      const isFinal = session.total !== undefined && start + chunkLength === session.total;
      if (!isFinal && chunkLength < CHUNK) {
        drain();
        throw new DriveError(
          400,
          "badRequest",
          `Invalid request. The number of bytes uploaded is required to be equal or greater than 262144, except for the final request (it's recommended to be the exact multiple of 262144). The received request contained ${chunkLength} bytes, which does not meet this requirement.`,
        );
      }
      if (session.total !== undefined && start + chunkLength > session.total) {
        drain();
        throw new DriveError(400, "badRequest", "Content-Range exceeds the declared upload size.");
      }
      const cutIndex = ctx.cuts.findIndex(
        (c) =>
          c.remaining > 0 &&
          (!c.uploadId || c.uploadId === session.id) &&
          c.afterBytes >= session.received &&
          c.afterBytes < start + chunkLength,
      );
      const cut = cutIndex >= 0 ? ctx.cuts[cutIndex] : undefined;
      if (cut) {
        cut.remaining--;
        if (cut.remaining <= 0) ctx.cuts.splice(cutIndex, 1);
      }
      const stopAt = cut ? cut.afterBytes : start + chunkLength;
      let position = start;
      const out = createWriteStream(part, { flags: "a" });
      let cutHappened = false;
      /** Only whole 256 KiB blocks survive an interrupted request. */
      const keepWholeBlocks = () => {
        const written = existsSync(part) ? statSync(part).size : 0;
        const kept = Math.max(session.received, Math.floor(written / CHUNK) * CHUNK);
        truncateSync(part, Math.min(kept, written));
        session.received = Math.min(kept, written);
        ctx.changed();
      };
      try {
        for await (const chunk of req.raw) {
          let buf = chunk as Buffer;
          const chunkStart = position;
          position += buf.length;
          session.inFlight = position - start;
          if (position <= session.received) continue;
          if (chunkStart < session.received) buf = buf.subarray(session.received - chunkStart);
          const room = stopAt - Math.max(chunkStart, session.received);
          if (buf.length > room) buf = buf.subarray(0, Math.max(0, room));
          if (buf.length && !out.write(buf)) await new Promise((r) => out.once("drain", r));
          const reached = Math.max(chunkStart, session.received) + buf.length;
          if (cut && reached >= stopAt) {
            cutHappened = true;
            break;
          }
        }
      } catch (e) {
        // The client went away mid-body (e.g. its process was killed).
        await new Promise<void>((resolve) => out.end(() => resolve()));
        keepWholeBlocks();
        throw e;
      } finally {
        session.inFlight = 0;
        if (!out.writableEnded) {
          await new Promise<void>((resolve, reject) =>
            out.end((err?: Error | null) => (err ? reject(err) : resolve())),
          );
        }
      }
      const written = existsSync(part) ? statSync(part).size : 0;
      if (cutHappened) {
        keepWholeBlocks();
        socket.destroy();
        reply.hijack();
        return reply;
      }
      if (written < start + chunkLength) {
        // Client sent fewer bytes than announced (aborted).
        keepWholeBlocks();
        return incomplete();
      }
      if (isFinal) {
        session.received = written;
        return await finish();
      }
      // Non-final chunks commit whole 256 KiB blocks only.
      const committed = Math.floor(written / CHUNK) * CHUNK;
      truncateSync(part, committed);
      session.received = committed;
      ctx.changed();
      return incomplete();
    } catch (e) {
      if (e instanceof DriveError)
        return sendDriveError(reply, e.status, e.reason, e.message, e.extra);
      throw e;
    }
  };
}
