import { createHmac } from "node:crypto";
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.ts";
import { jpeg } from "../images.ts";
import { mp4Bytes, mp4TotalSize } from "../mp4.ts";
import type { Asset } from "../state.ts";
import { query } from "../util.ts";

const IMAGE_DIR = "/scontent.cdninstagram.com/v/t51.2885-15/";
const VIDEO_DIR = "/scontent.cdninstagram.com/o1/v/t16/f2/m86/";

function sign(ctx: Ctx, path: string, oe: string, generation: number): string {
  return `00_${createHmac("sha256", ctx.cdnSecret).update(`${path}|${oe}|${generation}`).digest("base64url").slice(0, 40)}`;
}

/** A fresh signed CDN URL for an asset; it expires after ctx.cdnTtlSeconds of sandbox time. */
export function cdnUrl(ctx: Ctx, base: string, ownerId: string, asset: Asset): string {
  const path =
    asset.kind === "image"
      ? `${IMAGE_DIR}${ownerId}_${asset.width}x${asset.height}_${asset.seed}_n.jpg`
      : `${VIDEO_DIR}${ownerId}_${asset.width}x${asset.height}_${asset.bytes || ctx.largeVideoBytes}_${asset.seed}_n.mp4`;
  const oe = Math.floor(ctx.now() / 1000 + ctx.cdnTtlSeconds)
    .toString(16)
    .toUpperCase();
  const kind = asset.kind === "image" ? "dst-jpg_e35" : "dst-mp4";
  return `${base}${path}?stp=${kind}&_nc_ht=scontent.cdninstagram.com&_nc_cat=1&oh=${sign(ctx, path, oe, ctx.cdnGeneration)}&oe=${oe}`;
}

export function parseRange(
  header: string | undefined,
  total: number,
): { start: number; end: number } | "invalid" | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return "invalid";
  let start: number;
  let end: number;
  if (m[1] === "") {
    start = Math.max(0, total - Number(m[2]));
    end = total - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? total - 1 : Math.min(Number(m[2]), total - 1);
  }
  if (start >= total || start > end) return "invalid";
  return { start, end };
}

export function sendRanged(
  req: FastifyRequest,
  reply: FastifyReply,
  total: number,
  open: (start: number, end: number) => Readable | Buffer,
  options: { unsized?: boolean } = {},
): FastifyReply {
  reply.header("accept-ranges", "bytes");
  const range = parseRange(req.headers.range, total);
  if (range === "invalid") {
    return reply.code(416).header("content-range", `bytes */${total}`).send();
  }
  const { start, end } = range ?? { start: 0, end: total - 1 };
  if (range) reply.code(206).header("content-range", `bytes ${start}-${end}/${total}`);
  if (options.unsized) {
    // Streamed without a length (chunked transfer encoding).
    if (req.method === "HEAD") return reply.send();
    const body = open(start, end);
    return reply.send(Buffer.isBuffer(body) ? Readable.from([body]) : body);
  }
  reply.header("content-length", String(end - start + 1));
  if (req.method === "HEAD") return reply.send();
  if (total === 0) return reply.send(Buffer.alloc(0));
  return reply.send(open(start, end));
}

export function registerCdn(app: FastifyInstance, ctx: Ctx): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!(await ctx.enter(req, reply, "cdn"))) return reply;
    const path = req.url.split("?")[0]!;
    const q = query(req);
    const image =
      path.startsWith(IMAGE_DIR) &&
      /^\d+_(\d+)x(\d+)_(\d+)_n\.jpg$/.exec(path.slice(IMAGE_DIR.length));
    const video =
      path.startsWith(VIDEO_DIR) &&
      /^\d+_(\d+)x(\d+)_(\d+)_(\d+)_n\.mp4$/.exec(path.slice(VIDEO_DIR.length));
    if (!image && !video) return reply.code(404).type("text/plain").send("Not Found");
    const oe = q.oe ?? "";
    const valid = (g: number) => q.oh === sign(ctx, path, oe, g);
    if (!valid(ctx.cdnGeneration)) {
      let older = false;
      for (let g = 0; g < ctx.cdnGeneration; g++) if (valid(g)) older = true;
      return reply
        .code(403)
        .type("text/plain")
        .send(older ? "URL signature expired" : "Bad URL hash");
    }
    if (Number.parseInt(oe, 16) * 1000 <= ctx.now()) {
      return reply.code(403).type("text/plain").send("URL signature expired");
    }
    reply.header("cache-control", "max-age=1209600, no-transform");
    reply.header("last-modified", "Mon, 01 Jun 2026 00:00:00 GMT");
    reply.header("timing-allow-origin", "*");
    reply.header("access-control-allow-origin", "*");
    if (image) {
      const data = await jpeg(Number(image[1]), Number(image[2]), Number(image[3]));
      reply.type("image/jpeg");
      return sendRanged(req, reply, data.length, (s, e) => data.subarray(s, e + 1), {
        unsized: ctx.cdnUnsized,
      });
    }
    const [, w, h, bytes, seed] = video as RegExpExecArray;
    const spec = {
      bytes: Number(bytes),
      aspectW: Number(w),
      aspectH: Number(h),
      seed: Number(seed),
    };
    reply.type("video/mp4");
    return sendRanged(
      req,
      reply,
      mp4TotalSize(spec),
      (s, e) => Readable.from(mp4Bytes(spec, s, e)),
      { unsized: ctx.cdnUnsized },
    );
  };
  app.get("/scontent.cdninstagram.com/*", handler);
}
