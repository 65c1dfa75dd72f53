import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { sendS3Error } from "../../errors.ts";
import { BodyCut, storePayload } from "./body.ts";
import { registerS3Control, takeLostAnswer } from "./control.ts";
import { abortUpload, completeUpload, createUpload, listParts, uploadPart } from "./multipart.ts";
import { S3Error, type SignedContext, verifySigV4 } from "./sigv4.ts";
import {
  assertRoom,
  blobPath,
  bucketOf,
  checkConditions,
  dropObject,
  metadataOf,
  S3_NS,
  XML_HEAD,
  xmlEscape,
} from "./store.ts";

export { buckets } from "./store.ts";

type Handler = (
  req: FastifyRequest,
  reply: FastifyReply,
  signed: SignedContext,
) => Promise<unknown> | unknown;

/** Takes the next body cut the control API asked for, if any. */
function takeCut(ctx: Ctx): number | undefined {
  const cut = ctx.s3Cuts[0];
  if (!cut) return undefined;
  if (--cut.remaining <= 0) ctx.s3Cuts.shift();
  return cut.afterBytes;
}

function objectHeaders(reply: FastifyReply, o: import("../../state.ts").S3Object) {
  reply
    .header("etag", o.etag)
    .header("last-modified", new Date(o.lastModified).toUTCString())
    .header("accept-ranges", "bytes")
    .header("content-type", o.contentType);
  for (const [k, v] of Object.entries(o.metadata)) reply.header(`x-amz-meta-${k}`, v);
  for (const [k, v] of Object.entries(o.checksums)) reply.header(`x-amz-checksum-${k}`, v);
}

/**
 * An S3-compatible store at `/s3/{bucket}/{key}` (path-style, as MinIO, R2 and B2 are reached):
 * SigV4-signed requests only; objects, ListObjectsV2, multipart uploads, conditional writes.
 */
export function registerS3(app: FastifyInstance, ctx: Ctx): void {
  registerS3Control(app, ctx);
  app.register(async (scope) => {
    // Bodies are read raw: signatures, payload hashes and aws-chunked need the bytes as sent.
    // Every body is the object's bytes, JSON and text too (a sidecar is application/json).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, _payload, done) => done(null));
    // A call whose answer is lost (`/_control/s3/lose-answer`) was handled; its connection drops.
    const losing = new WeakSet<FastifyRequest>();
    scope.addHook("onSend", async (req, _reply, payload) => {
      if (losing.has(req)) req.raw.socket.destroy();
      return payload;
    });
    const route =
      (endpoint: (req: FastifyRequest) => string, handler: Handler) =>
      async (req: FastifyRequest, reply: FastifyReply) => {
        try {
          const signed = verifySigV4(req);
          const name = endpoint(req);
          if (!(await ctx.enter(req, reply, name))) return reply;
          if (takeLostAnswer(ctx, name)) losing.add(req);
          return await handler(req, reply, signed);
        } catch (err) {
          if (err instanceof BodyCut) return reply.hijack();
          if (err instanceof S3Error)
            return sendS3Error(reply, err.status, err.code, err.message, err.extra);
          throw err;
        }
      };
    const params = (req: FastifyRequest) => req.params as { bucket: string; "*"?: string };
    const has = (req: FastifyRequest, name: string) => Object.hasOwn(req.query as object, name);

    // --- the bucket: HeadBucket, ListObjectsV2, ListMultipartUploads -------------------
    // (the SDK sends a bucket's calls to `/s3/{bucket}/` too: an empty key is the bucket)
    const bucketEndpoint = (req: FastifyRequest) =>
      req.method === "HEAD" ? "s3.head-bucket" : "s3.list";
    const bucketOp = (req: FastifyRequest, reply: FastifyReply) => {
      const bucket = bucketOf(ctx, params(req).bucket);
      if (req.method === "HEAD") return reply.header("x-amz-bucket-region", "us-east-1").send();
      const q = req.query as Record<string, string>;
      if (has(req, "uploads")) {
        const xml = Object.values(bucket.uploads)
          .map(
            (u) =>
              `<Upload><Key>${xmlEscape(u.key)}</Key><UploadId>${u.id}</UploadId><Initiated>${new Date(u.initiated).toISOString()}</Initiated></Upload>`,
          )
          .join("");
        return reply
          .type("application/xml")
          .send(
            `${XML_HEAD}<ListMultipartUploadsResult xmlns="${S3_NS}"><Bucket>${xmlEscape(bucket.name)}</Bucket><IsTruncated>false</IsTruncated>${xml}</ListMultipartUploadsResult>`,
          );
      }
      if (q["list-type"] !== "2") {
        throw new S3Error(400, "InvalidArgument", "Only ListObjectsV2 (list-type=2) is emulated.");
      }
      const prefix = q.prefix ?? "";
      const max = Math.min(Math.max(Number(q["max-keys"] ?? 1000), 0), 1000);
      const after = q["continuation-token"]
        ? Buffer.from(q["continuation-token"], "base64url").toString()
        : (q["start-after"] ?? "");
      const delimiter = q.delimiter;
      const keys = Object.keys(bucket.objects)
        .filter((k) => k.startsWith(prefix) && k > after)
        .sort();
      const contents: string[] = [];
      const prefixes = new Set<string>();
      let last = "";
      let truncated = false;
      for (const k of keys) {
        if (contents.length + prefixes.size >= max) {
          truncated = true;
          break;
        }
        last = k;
        const rest = k.slice(prefix.length);
        const cut = delimiter ? rest.indexOf(delimiter) : -1;
        if (delimiter && cut >= 0) {
          prefixes.add(prefix + rest.slice(0, cut + delimiter.length));
          continue;
        }
        const o = bucket.objects[k]!;
        contents.push(
          `<Contents><Key>${xmlEscape(k)}</Key><LastModified>${new Date(o.lastModified).toISOString()}</LastModified><ETag>${xmlEscape(o.etag)}</ETag><Size>${o.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
        );
      }
      const next = truncated
        ? `<NextContinuationToken>${Buffer.from(last).toString("base64url")}</NextContinuationToken>`
        : "";
      const common = [...prefixes]
        .map((p) => `<CommonPrefixes><Prefix>${xmlEscape(p)}</Prefix></CommonPrefixes>`)
        .join("");
      return reply
        .type("application/xml")
        .send(
          `${XML_HEAD}<ListBucketResult xmlns="${S3_NS}"><Name>${xmlEscape(bucket.name)}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${contents.length + prefixes.size}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${next}${contents.join("")}${common}</ListBucketResult>`,
        );
    };
    scope.route({
      method: ["GET", "HEAD"],
      url: "/s3/:bucket",
      exposeHeadRoute: false,
      handler: route(bucketEndpoint, (req, reply) => bucketOp(req, reply)),
    });

    // --- objects and multipart uploads ------------------------------------------------------
    scope.route({
      method: ["GET", "HEAD", "PUT", "POST", "DELETE"],
      url: "/s3/:bucket/*",
      exposeHeadRoute: false,
      handler: route(
        (req) => {
          if (has(req, "uploadId")) {
            return req.method === "PUT"
              ? "s3.multipart.part"
              : req.method === "POST"
                ? "s3.multipart.complete"
                : req.method === "DELETE"
                  ? "s3.multipart.abort"
                  : "s3.multipart.list";
          }
          if (!params(req)["*"]) return bucketEndpoint(req);
          if (has(req, "uploads")) return "s3.multipart.create";
          return `s3.${req.method.toLowerCase()}`;
        },
        async (req, reply, signed) => {
          const bucket = bucketOf(ctx, params(req).bucket);
          const key = params(req)["*"] ?? "";
          if (!key) {
            if (req.method === "GET" || req.method === "HEAD") return bucketOp(req, reply);
            throw new S3Error(400, "InvalidArgument", "An object key is required.");
          }
          if (has(req, "uploadId")) {
            if (req.method === "PUT")
              return uploadPart(ctx, bucket, key, req, reply, signed, takeCut(ctx));
            if (req.method === "POST") return completeUpload(ctx, bucket, key, req, reply, signed);
            if (req.method === "DELETE") return abortUpload(ctx, bucket, key, req, reply);
            return listParts(bucket, key, req, reply);
          }
          if (req.method === "POST" && has(req, "uploads"))
            return createUpload(ctx, bucket, key, req, reply);
          const existing = bucket.objects[key];
          if (req.method === "PUT") {
            const blob = `s3-${randomBytes(12).toString("hex")}`;
            // The ETag is the md5 of what is stored, as for a part: a corrupted write (the
            // control API's) answers an ETag that is not the md5 of what was sent.
            const { size, md5, checksums } = await storePayload(
              ctx,
              req,
              signed,
              takeCut(ctx),
              blob,
              (n) => {
                checkConditions(req.headers, existing);
                assertRoom(bucket, n, existing?.size ?? 0);
              },
            );
            dropObject(ctx, bucket, key);
            const etag = `"${md5}"`;
            bucket.objects[key] = {
              key,
              blob,
              size,
              etag,
              contentType: String(req.headers["content-type"] ?? "binary/octet-stream"),
              metadata: metadataOf(req.headers),
              checksums,
              lastModified: ctx.now(),
            };
            ctx.changed();
            return reply.header("etag", etag).send();
          }
          if (req.method === "DELETE") {
            dropObject(ctx, bucket, key);
            ctx.changed();
            return reply.code(204).send();
          }
          if (!existing) {
            throw new S3Error(404, "NoSuchKey", "The specified key does not exist.", { Key: key });
          }
          objectHeaders(reply, existing);
          if (req.method === "HEAD")
            return reply.header("content-length", String(existing.size)).send();
          const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ""));
          if (range && existing.size > 0) {
            const start = range[1]
              ? Number(range[1])
              : Math.max(existing.size - Number(range[2]), 0);
            const end =
              range[1] && range[2]
                ? Math.min(Number(range[2]), existing.size - 1)
                : existing.size - 1;
            if (start > end || start >= existing.size) {
              throw new S3Error(416, "InvalidRange", "The requested range is not satisfiable");
            }
            return reply
              .code(206)
              .header("content-range", `bytes ${start}-${end}/${existing.size}`)
              .header("content-length", String(end - start + 1))
              .send(createReadStream(blobPath(ctx, existing.blob), { start, end }));
          }
          return reply
            .header("content-length", String(existing.size))
            .send(createReadStream(blobPath(ctx, existing.blob)));
        },
      ),
    });
  });
}
