import { createHash, randomBytes } from "node:crypto";
import { renameSync, rmSync } from "node:fs";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import type { S3Bucket, S3Upload } from "../../state.ts";
import { readPayload, storePayload } from "./body.ts";
import type { SignedContext } from "./sigv4.ts";
import { S3Error } from "./sigv4.ts";
import {
  assertRoom,
  blobPath,
  checkConditions,
  dropObject,
  joinBlobs,
  metadataOf,
  S3_NS,
  XML_HEAD,
  xmlEscape,
} from "./store.ts";

/** S3's smallest part, but for the last one. */
const MIN_PART_BYTES = 5 * 1024 * 1024;
const MAX_PARTS = 10_000;

function uploadOf(bucket: S3Bucket, key: string, id: string | undefined): S3Upload {
  const upload = id ? bucket.uploads[id] : undefined;
  if (!upload || upload.key !== key) {
    throw new S3Error(
      404,
      "NoSuchUpload",
      "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
      { UploadId: id ?? "" },
    );
  }
  return upload;
}

export function createUpload(
  ctx: Ctx,
  bucket: S3Bucket,
  key: string,
  req: FastifyRequest,
  reply: FastifyReply,
) {
  const id = randomBytes(24).toString("base64url");
  bucket.uploads[id] = {
    id,
    key,
    contentType: String(req.headers["content-type"] ?? "binary/octet-stream"),
    metadata: metadataOf(req.headers),
    initiated: ctx.now(),
    parts: {},
  };
  ctx.changed();
  return reply
    .type("application/xml")
    .send(
      `${XML_HEAD}<InitiateMultipartUploadResult xmlns="${S3_NS}"><Bucket>${xmlEscape(bucket.name)}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
    );
}

export async function uploadPart(
  ctx: Ctx,
  bucket: S3Bucket,
  key: string,
  req: FastifyRequest,
  reply: FastifyReply,
  signed: SignedContext,
  cutAfter: number | undefined,
) {
  const q = req.query as Record<string, string>;
  const upload = uploadOf(bucket, key, q.uploadId);
  const number = Number(q.partNumber);
  if (!Number.isInteger(number) || number < 1 || number > MAX_PARTS) {
    throw new S3Error(
      400,
      "InvalidArgument",
      "Part number must be an integer between 1 and 10000, inclusive",
    );
  }
  const blob = `s3-part-${upload.id}-${number}`;
  // Written under a name of its own until it is the part: a part sent again whose new bytes
  // are refused (a cut, a bad digest, no room) leaves the part S3 holds as it was.
  const receiving = `${blob}-${randomBytes(6).toString("hex")}`;
  const { size, md5 } = await storePayload(ctx, req, signed, cutAfter, receiving, (n) =>
    assertRoom(bucket, n),
  );
  renameSync(blobPath(ctx, receiving), blobPath(ctx, blob));
  upload.parts[String(number)] = {
    number,
    blob,
    size,
    md5,
    etag: `"${md5}"`,
    lastModified: ctx.now(),
  };
  ctx.changed();
  return reply.header("etag", `"${md5}"`).send();
}

/** ListParts: what a client resuming an upload after a cut asks. */
export function listParts(bucket: S3Bucket, key: string, req: FastifyRequest, reply: FastifyReply) {
  const q = req.query as Record<string, string>;
  const upload = uploadOf(bucket, key, q.uploadId);
  const after = Number(q["part-number-marker"] ?? 0);
  const max = Math.min(Number(q["max-parts"] ?? 1000), 1000);
  const parts = Object.values(upload.parts)
    .filter((p) => p.number > after)
    .sort((a, b) => a.number - b.number);
  const page = parts.slice(0, max);
  const truncated = parts.length > page.length;
  const xml = page
    .map(
      (p) =>
        `<Part><PartNumber>${p.number}</PartNumber><LastModified>${new Date(p.lastModified).toISOString()}</LastModified><ETag>${xmlEscape(p.etag)}</ETag><Size>${p.size}</Size></Part>`,
    )
    .join("");
  return reply
    .type("application/xml")
    .send(
      `${XML_HEAD}<ListPartsResult xmlns="${S3_NS}"><Bucket>${xmlEscape(bucket.name)}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${upload.id}</UploadId><PartNumberMarker>${after}</PartNumberMarker><NextPartNumberMarker>${page.at(-1)?.number ?? after}</NextPartNumberMarker><MaxParts>${max}</MaxParts><IsTruncated>${truncated}</IsTruncated>${xml}</ListPartsResult>`,
    );
}

export function abortUpload(
  ctx: Ctx,
  bucket: S3Bucket,
  key: string,
  req: FastifyRequest,
  reply: FastifyReply,
) {
  const upload = uploadOf(bucket, key, (req.query as Record<string, string>).uploadId);
  for (const p of Object.values(upload.parts)) rmSync(blobPath(ctx, p.blob), { force: true });
  delete bucket.uploads[upload.id];
  ctx.changed();
  return reply.code(204).send();
}

/**
 * CompleteMultipartUpload: the listed parts, in order, with their ETags, each but the last at
 * least 5 MiB (and, on the `r2` flavour, all but the last of one size); `If-None-Match: *` holds
 * at completion. The ETag is the md5 of the parts' md5s and `-N`.
 */
export async function completeUpload(
  ctx: Ctx,
  bucket: S3Bucket,
  key: string,
  req: FastifyRequest,
  reply: FastifyReply,
  signed: SignedContext,
) {
  const upload = uploadOf(bucket, key, (req.query as Record<string, string>).uploadId);
  const body = (await readPayload(req, signed, ctx.s3Flavor)).data.toString("utf8");
  const listed = [...body.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map((m) => ({
    number: Number(/<PartNumber>(\d+)<\/PartNumber>/.exec(m[1]!)?.[1]),
    etag: /<ETag>([^<]*)<\/ETag>/.exec(m[1]!)?.[1]?.replace(/&quot;/g, '"') ?? "",
  }));
  if (listed.length === 0) {
    throw new S3Error(
      400,
      "MalformedXML",
      "The XML you provided was not well-formed or did not validate against our published schema",
    );
  }
  const parts = listed.map((l, i) => {
    const part = upload.parts[String(l.number)];
    const etag = l.etag.startsWith('"') ? l.etag : `"${l.etag}"`;
    if (!part || part.etag !== etag) {
      throw new S3Error(
        400,
        "InvalidPart",
        "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not have matched the part's entity tag.",
      );
    }
    if (i > 0 && l.number <= listed[i - 1]!.number) {
      throw new S3Error(
        400,
        "InvalidPartOrder",
        "The list of parts was not in ascending order. Parts must be ordered by part number.",
      );
    }
    return part;
  });
  parts.forEach((p, i) => {
    const last = i === parts.length - 1;
    if (!last && p.size < MIN_PART_BYTES) {
      throw new S3Error(
        400,
        "EntityTooSmall",
        "Your proposed upload is smaller than the minimum allowed object size.",
      );
    }
    if (ctx.s3Flavor === "r2" && !last && p.size !== parts[0]!.size) {
      throw new S3Error(400, "InvalidPart", "All non-trailing parts must have the same length.");
    }
  });
  const size = parts.reduce((n, p) => n + p.size, 0);
  const admissible = () => {
    checkConditions(req.headers, bucket.objects[key]);
    assertRoom(bucket, size, bucket.objects[key]?.size ?? 0);
  };
  admissible();
  const blob = `s3-${randomBytes(12).toString("hex")}`;
  await joinBlobs(
    ctx,
    parts.map((p) => p.blob),
    blob,
  );
  // Other requests ran meanwhile: the upload may be gone (aborted, completed), the key taken.
  try {
    uploadOf(bucket, key, upload.id);
    admissible();
  } catch (err) {
    rmSync(blobPath(ctx, blob), { force: true });
    throw err;
  }
  dropObject(ctx, bucket, key);
  const etag = `"${createHash("md5")
    .update(Buffer.concat(parts.map((p) => Buffer.from(p.md5, "hex"))))
    .digest("hex")}-${parts.length}"`;
  bucket.objects[key] = {
    key,
    blob,
    size,
    etag,
    contentType: upload.contentType,
    metadata: upload.metadata,
    checksums: {},
    lastModified: ctx.now(),
  };
  for (const p of Object.values(upload.parts)) rmSync(blobPath(ctx, p.blob), { force: true });
  delete bucket.uploads[upload.id];
  ctx.changed();
  return reply
    .type("application/xml")
    .send(
      `${XML_HEAD}<CompleteMultipartUploadResult xmlns="${S3_NS}"><Location>/${xmlEscape(bucket.name)}/${xmlEscape(key)}</Location><Bucket>${xmlEscape(bucket.name)}</Bucket><Key>${xmlEscape(key)}</Key><ETag>${xmlEscape(etag)}</ETag></CompleteMultipartUploadResult>`,
    );
}
