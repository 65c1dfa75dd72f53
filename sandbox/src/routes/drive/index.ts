import type { FastifyInstance } from "fastify";
import type { Ctx } from "../../context.ts";
import { driveWrap } from "./api.ts";
import { registerFiles } from "./files.ts";
import { registerUploads } from "./uploads.ts";

export { deleteTree } from "./blobs.ts";
export { FOLDER_MIME, fileResource, usage } from "./resource.ts";

export function registerDrive(app: FastifyInstance, ctx: Ctx): void {
  const wrap = driveWrap(ctx);
  registerFiles(app, ctx, wrap);
  registerUploads(app, ctx, wrap);
}
