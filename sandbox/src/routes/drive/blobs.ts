import { createHash } from "node:crypto";
import { createReadStream, rmSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import type { DriveFile } from "../../state.ts";
import { DriveError } from "./resource.ts";

export async function readAll(req: FastifyRequest, limit: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw) {
    size += (chunk as Buffer).length;
    if (size > limit)
      throw new DriveError(
        413,
        "uploadTooLarge",
        "Request entity too large; use a resumable upload.",
      );
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

export function parseMultipart(
  body: Buffer,
  contentType: string,
): { meta: Record<string, unknown>; media: Buffer; mediaType?: string } {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) throw new DriveError(400, "badContent", "Missing multipart boundary");
  const delim = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let pos = body.indexOf(delim);
  while (pos >= 0) {
    const start = pos + delim.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const nextPos = body.indexOf(delim, start);
    if (nextPos < 0) break;
    parts.push(body.subarray(start, nextPos));
    pos = nextPos;
  }
  const parsed = parts.map((p) => {
    const headerEnd = p.indexOf("\r\n\r\n");
    const sep = headerEnd >= 0 ? 4 : 2;
    const end = headerEnd >= 0 ? headerEnd : p.indexOf("\n\n");
    const headers = p.subarray(0, end).toString();
    let content = p.subarray(end + sep);
    if (content.subarray(-2).toString() === "\r\n") content = content.subarray(0, -2);
    else if (content.subarray(-1).toString() === "\n") content = content.subarray(0, -1);
    const ct = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim();
    const b64 = /content-transfer-encoding:\s*base64/i.test(headers);
    return { ct, content: b64 ? Buffer.from(content.toString(), "base64") : content };
  });
  if (parsed.length !== 2)
    throw new DriveError(
      400,
      "badContent",
      "Multipart upload needs exactly a metadata part and a media part",
    );
  let meta: Record<string, unknown>;
  try {
    meta = JSON.parse(parsed[0]!.content.toString() || "{}") as Record<string, unknown>;
  } catch {
    throw new DriveError(400, "parseError", "Parse Error");
  }
  return { meta, media: parsed[1]!.content, mediaType: parsed[1]!.ct };
}

export async function md5File(path: string): Promise<string> {
  const hash = createHash("md5");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}

/** Flips the first byte of a stored upload when the control API asked for a corrupt one. */
export function corruptIfAsked(ctx: Ctx, data: Buffer): Buffer {
  if (ctx.corruptUploads <= 0 || data.length === 0) return data;
  ctx.corruptUploads--;
  const out = Buffer.from(data);
  out[0] = (out[0] as number) ^ 0xff;
  return out;
}

export async function storeBlob(ctx: Ctx, file: DriveFile, sent: Buffer): Promise<void> {
  const data = corruptIfAsked(ctx, sent);
  const { writeFile } = await import("node:fs/promises");
  await writeFile(join(ctx.blobDir, file.id), data);
  file.size = data.length;
  file.md5 = createHash("md5").update(data).digest("hex");
  ctx.state.driveFiles[file.id] = file;
  ctx.changed();
}

export function deleteTree(ctx: Ctx, id: string): void {
  for (const child of Object.values(ctx.state.driveFiles)) {
    if (child.parents.includes(id)) deleteTree(ctx, child.id);
  }
  delete ctx.state.driveFiles[id];
  rmSync(join(ctx.blobDir, id), { force: true });
}
