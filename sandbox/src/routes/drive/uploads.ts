import type { FastifyInstance } from "fastify";
import type { Ctx } from "../../context.ts";
import type { UploadSession } from "../../state.ts";
import { query, randomId } from "../../util.ts";
import { UPLOAD_PATH as uploadPath, type Wrap } from "./api.ts";
import { parseMultipart, readAll, storeBlob } from "./blobs.ts";
import {
  checkQuota,
  DriveError,
  FOLDER_MIME,
  invalidParam,
  newFileFromMetadata,
  renderFile,
  visible,
} from "./resource.ts";
import { resumableChunk } from "./resumable.ts";

const SESSION_TTL = 7 * 86_400_000;

/** Uploads take raw bodies (read or streamed here), so they live in a scope without body parsers. */
export function registerUploads(app: FastifyInstance, ctx: Ctx, wrap: Wrap): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, _payload, done) => done(null));

    scope.post(
      uploadPath,
      wrap("drive.upload", async (req, reply, auth) => {
        const q = query(req);
        const base = ctx.baseUrl(req);
        const type = q.uploadType;
        const contentType = req.headers["content-type"] ?? "";
        if (type === "multipart") {
          ctx.calls["drive.upload.multipart"] = (ctx.calls["drive.upload.multipart"] ?? 0) + 1;
          const body = await readAll(req, 6 * 1024 * 1024);
          const { meta, media, mediaType } = parseMultipart(body, contentType);
          const file = newFileFromMetadata(ctx, auth, meta, mediaType);
          checkQuota(ctx, auth.user, media.length);
          await storeBlob(ctx, file, media);
          return reply.send(renderFile(base, file, auth.user, q.fields));
        }
        if (type === "media") {
          const media = await readAll(req, 6 * 1024 * 1024);
          const file = newFileFromMetadata(ctx, auth, {}, contentType);
          checkQuota(ctx, auth.user, media.length);
          await storeBlob(ctx, file, media);
          return reply.send(renderFile(base, file, auth.user, q.fields));
        }
        if (type === "resumable") {
          ctx.calls["drive.upload.resumable.start"] =
            (ctx.calls["drive.upload.resumable.start"] ?? 0) + 1;
          const raw = await readAll(req, 1024 * 1024);
          let meta: Record<string, unknown> = {};
          if (raw.length) {
            try {
              meta = JSON.parse(raw.toString()) as Record<string, unknown>;
            } catch {
              throw new DriveError(400, "parseError", "Parse Error");
            }
          }
          const xType = req.headers["x-upload-content-type"] as string | undefined;
          const xLength = req.headers["x-upload-content-length"] as string | undefined;
          const total = xLength !== undefined ? Number(xLength) : undefined;
          if (total !== undefined && (!Number.isInteger(total) || total < 0))
            throw new DriveError(400, "invalid", "Invalid X-Upload-Content-Length");
          // Validate now (parents, times) so errors surface before any bytes are sent.
          newFileFromMetadata(ctx, auth, meta, xType);
          if (total !== undefined) checkQuota(ctx, auth.user, total);
          const id = `AUy${randomId(40).replace(/[-_]/g, "q")}`;
          const session: UploadSession = {
            id,
            ownerSub: auth.user.sub,
            appClientId: auth.token.clientId,
            metadata: { ...meta, __fields: q.fields },
            contentType: xType,
            total,
            received: 0,
            createdAt: ctx.now(),
            expiresAt: ctx.now() + SESSION_TTL,
          };
          ctx.state.uploads[id] = session;
          ctx.changed();
          return reply
            .header("location", `${base}${uploadPath}?uploadType=resumable&upload_id=${id}`)
            .header("x-guploader-uploadid", id)
            .send();
        }
        throw invalidParam("uploadType");
      }),
    );
    // Replacing a file's content in place (same id): only `uploadType=media` here.
    scope.patch(
      `${uploadPath}/:id`,
      wrap("drive.upload.update", async (req, reply, auth) => {
        const q = query(req);
        if (q.uploadType !== "media") throw invalidParam("uploadType");
        const id = (req.params as { id: string }).id;
        const file = ctx.state.driveFiles[id];
        if (!file || !visible(ctx, auth, file) || file.mimeType === FOLDER_MIME)
          throw new DriveError(404, "notFound", `File not found: ${id}.`);
        const media = await readAll(req, 6 * 1024 * 1024);
        checkQuota(ctx, auth.user, Math.max(0, media.length - (file.size ?? 0)));
        const contentType = req.headers["content-type"];
        if (contentType) file.mimeType = contentType.split(";")[0]!.trim();
        file.modifiedTime = ctx.now();
        await storeBlob(ctx, file, media);
        return reply.send(renderFile(ctx.baseUrl(req), file, auth.user, q.fields));
      }),
    );
    const putChunk = resumableChunk(ctx);
    scope.put(uploadPath, putChunk);
    scope.post(`${uploadPath}/resumable`, putChunk);
  });
}
