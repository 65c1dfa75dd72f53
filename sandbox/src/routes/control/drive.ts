import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Ctx } from "../../context.ts";
import type { DriveFile } from "../../state.ts";
import { FOLDER_MIME, usage } from "../drive/index.ts";
import { CONTROL as c, handle } from "./handle.ts";

function folderPath(ctx: Ctx, file: DriveFile): string {
  const names: string[] = [];
  let parentId = file.parents[0];
  let guard = 0;
  while (parentId && guard++ < 64) {
    const parent = ctx.state.driveFiles[parentId];
    if (!parent) break;
    names.unshift(parent.name);
    parentId = parent.parents[0];
  }
  return names.join("/");
}

export function driveListing(ctx: Ctx, email?: string) {
  const users = ctx.state.googleUsers;
  return Object.values(ctx.state.driveFiles)
    .filter((f) => !email || users[f.ownerSub]?.email === email)
    .sort((a, b) => a.createdTime - b.createdTime || a.id.localeCompare(b.id))
    .map((f) => {
      const folder = folderPath(ctx, f);
      return {
        ownerEmail: users[f.ownerSub]?.email ?? null,
        id: f.id,
        name: f.name,
        folder,
        path: folder ? `${folder}/${f.name}` : f.name,
        mimeType: f.mimeType,
        isFolder: f.mimeType === FOLDER_MIME,
        size: f.size ?? null,
        md5Checksum: f.md5 ?? null,
        appProperties: f.appProperties,
        properties: f.properties,
        parents: f.parents,
        createdTime: new Date(f.createdTime).toISOString(),
        modifiedTime: new Date(f.modifiedTime).toISOString(),
        description: f.description ?? null,
        trashed: f.trashed,
      };
    });
}

/** Drive faults (cut connections, corrupt uploads, quota) and listings of files and upload sessions. */
export function registerDriveControl(app: FastifyInstance, ctx: Ctx): void {
  app.post(
    `${c}/drive/cut`,
    handle(
      z.object({
        after_bytes: z.number().int().min(0),
        count: z.number().int().min(1).default(1),
        upload_id: z.string().optional(),
      }),
      (b) => {
        ctx.cuts.push({ afterBytes: b.after_bytes, remaining: b.count, uploadId: b.upload_id });
        return { cuts: ctx.cuts };
      },
    ),
  );
  app.post(
    `${c}/drive/corrupt`,
    handle(z.object({ count: z.number().int().min(1).default(1) }), (b) => {
      ctx.corruptUploads += b.count;
      return { corrupt_uploads: ctx.corruptUploads };
    }),
  );
  app.post(
    `${c}/drive/quota`,
    handle(
      z.object({
        email: z.string(),
        limit_bytes: z.number().int().min(0).optional(),
        fill: z.boolean().optional(),
        free_bytes: z.number().int().min(0).optional(),
      }),
      (b, reply) => {
        const user = Object.values(ctx.state.googleUsers).find((u) => u.email === b.email);
        if (!user) return reply.code(404).send({ error: `no Google user ${b.email}` });
        if (b.limit_bytes !== undefined) user.quotaLimit = b.limit_bytes;
        if (b.fill || b.free_bytes !== undefined) {
          user.quotaFill = 0;
          user.quotaFill = Math.max(0, user.quotaLimit - usage(ctx, user) - (b.free_bytes ?? 0));
        }
        ctx.changed();
        return { email: user.email, limit: user.quotaLimit, usage: usage(ctx, user) };
      },
    ),
  );
  app.get(`${c}/drive/files`, async (req) => ({
    files: driveListing(ctx, (req.query as { email?: string }).email),
  }));
  app.get(`${c}/drive/uploads`, async () => ({
    uploads: Object.values(ctx.state.uploads).map((u) => ({
      upload_id: u.id,
      received: u.received,
      in_flight: u.inFlight ?? 0,
      requests: ctx.chunkRequests.get(u.id) ?? 0,
      total: u.total ?? null,
      file_id: u.fileId ?? null,
      expires_at: new Date(u.expiresAt).toISOString(),
    })),
  }));
  app.post(
    `${c}/drive/uploads/expire`,
    handle(z.object({ upload_id: z.string().optional() }), (b) => {
      let n = 0;
      for (const u of Object.values(ctx.state.uploads)) {
        if (!b.upload_id || u.id === b.upload_id) {
          u.expiresAt = ctx.now() - 1;
          n++;
        }
      }
      ctx.changed();
      return { expired: n };
    }),
  );
}
