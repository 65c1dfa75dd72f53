import { readFileSync, rmSync, truncateSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { destinationFaults, receiveBodyCut } from "../../destination-faults.ts";
import type { OneDriveSession } from "../../state.ts";
import { driveItem, GraphApiError, onedriveState } from "./common.ts";
import { commitFile, FRAGMENT_UNIT, MAX_FRAGMENT } from "./files.ts";

type Guard = (
  endpoint: string,
  fn: (req: FastifyRequest, reply: FastifyReply) => unknown,
) => (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The upload URL a session hands out: status, cancel, and fragments in order. */
export function registerUploadUrl(scope: FastifyInstance, ctx: Ctx, guard: Guard): void {
  // The pre-authenticated upload URL: no Authorization header (Graph refuses one there).
  const sessionOf = (req: FastifyRequest) => {
    const s = onedriveState(ctx).sessions[(req.params as { id: string }).id];
    if (!s || s.expires <= ctx.now())
      throw new GraphApiError(
        404,
        "itemNotFound",
        "The upload session was not found or has expired.",
      );
    return s;
  };
  const status = (s: OneDriveSession) => ({
    expirationDateTime: new Date(s.expires).toISOString(),
    nextExpectedRanges: [`${s.received}-${s.total !== undefined ? s.total - 1 : ""}`],
  });
  scope.get(
    "/graph.microsoft.com/upload/:id",
    guard("onedrive.upload.status", (req) => status(sessionOf(req))),
  );
  scope.delete(
    "/graph.microsoft.com/upload/:id",
    guard("onedrive.upload.cancel", (req, reply) => {
      const s = sessionOf(req);
      rmSync(join(ctx.blobDir, s.blob), { force: true });
      delete onedriveState(ctx).sessions[s.id];
      ctx.changed();
      return reply.code(204).send();
    }),
  );
  scope.put(
    "/graph.microsoft.com/upload/:id",
    guard("onedrive.upload", async (req, reply) => {
      if (req.headers.authorization) {
        throw new GraphApiError(
          401,
          "unauthenticated",
          "The upload URL is pre-authenticated: send no Authorization header.",
        );
      }
      const s = sessionOf(req);
      const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers["content-range"] ?? ""));
      if (!range) {
        throw new GraphApiError(
          400,
          "invalidRequest",
          "Content-Range must be bytes start-end/total (the total size is required).",
        );
      }
      const [start, end, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
      if (s.total !== undefined && s.total !== total)
        throw new GraphApiError(400, "invalidRequest", "The total size changed.");
      const length = end - start + 1;
      const last = end === total - 1;
      if (start !== s.received || end < start || end >= total) {
        return reply.code(416).send({
          error: {
            code: "invalidRange",
            message: "The uploaded fragment overlaps or skips bytes; see nextExpectedRanges.",
          },
          nextExpectedRanges: [`${s.received}-`],
        });
      }
      // Graph: "the maximum bytes in any given request is less than 60 MiB".
      if (length >= MAX_FRAGMENT || (!last && length % FRAGMENT_UNIT !== 0)) {
        throw new GraphApiError(
          400,
          "invalidRequest",
          "Fragments must be a multiple of 320 KiB (327,680 bytes) but for the last, each less than 60 MiB.",
        );
      }
      const socket = req.raw.socket;
      // The fragment is written after what the session holds as it arrives (never held whole).
      const path = join(ctx.blobDir, s.blob);
      const { size, cut } = await receiveBodyCut(
        req.raw,
        { path, at: s.received },
        MAX_FRAGMENT,
        () => new GraphApiError(413, "requestTooLarge", "The request is too large."),
        destinationFaults(ctx, "onedrive"),
      );
      if (cut === "mid") {
        // An interrupted fragment keeps its whole 320 KiB units; nextExpectedRanges tells.
        const kept = Math.floor(size / FRAGMENT_UNIT) * FRAGMENT_UNIT;
        truncateSync(path, s.received + kept);
        s.total = total;
        s.received += kept;
        ctx.changed();
        socket.destroy();
        reply.hijack();
        return reply;
      }
      if (size !== length) {
        truncateSync(path, s.received);
        throw new GraphApiError(400, "invalidRequest", "The body does not match Content-Range.");
      }
      s.total = total;
      s.received += length;
      ctx.changed();
      const lost = () => {
        socket.destroy();
        reply.hijack();
        return reply;
      };
      if (!last) return cut === "answer" ? lost() : reply.code(202).send(status(s));
      const user = onedriveState(ctx).users[s.userId]!;
      const parent = user.items[s.parentId];
      if (!parent) throw new GraphApiError(404, "itemNotFound", "The parent folder is gone.");
      const whole = readFileSync(join(ctx.blobDir, s.blob));
      try {
        const { item, created } = commitFile(ctx, user, parent, s.name, whole, {
          conflict: s.conflictBehavior,
          fsCreated: s.fsCreated,
          fsModified: s.fsModified,
        });
        if (cut === "answer") return lost();
        return reply.code(created ? 201 : 200).send(driveItem(ctx.baseUrl(req), user, item));
      } finally {
        rmSync(join(ctx.blobDir, s.blob), { force: true });
        delete onedriveState(ctx).sessions[s.id];
        ctx.changed();
      }
    }),
  );
}
