import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import type { FastifyRequest } from "fastify";
import { chunkSignature, S3Error, type SignedContext, sha256hex } from "./sigv4.ts";

/** The most one request body may bring here (a sandbox buffers it; parts are far smaller). */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;

/** What S3 and its kin differ in: AWS takes the SDK's checksums; R2, B2 and older MinIO refuse them. */
export type S3Flavor = "aws" | "r2";

export interface Payload {
  data: Buffer;
  /** Checksums given in headers or the trailer, verified, by algorithm (`crc32`, `sha256`…). */
  checksums: Record<string, string>;
}

/** The connection was cut on purpose (a control rule) after some of the body arrived. */
export class BodyCut extends Error {}

async function readRaw(req: FastifyRequest, cutAfter: number | undefined): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw) {
    size += (chunk as Buffer).length;
    if (cutAfter !== undefined && size > cutAfter) {
      req.raw.socket.destroy();
      throw new BodyCut();
    }
    if (size > MAX_BODY_BYTES) {
      throw new S3Error(
        400,
        "EntityTooLarge",
        "Your proposed upload exceeds the maximum allowed size",
      );
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

/** Decodes `aws-chunked`: `<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n` …, then trailers. */
function decodeChunked(
  raw: Buffer,
  signed: SignedContext | null,
): { data: Buffer; trailers: Record<string, string> } {
  const out: Buffer[] = [];
  let pos = 0;
  let previous = signed?.seedSignature ?? "";
  const bad = () =>
    new S3Error(400, "IncompleteBody", "The request body is not valid aws-chunked encoding.");
  for (;;) {
    const eol = raw.indexOf("\r\n", pos);
    if (eol < 0) throw bad();
    const head = raw.subarray(pos, eol).toString("latin1");
    const [sizeHex, ...ext] = head.split(";");
    const size = Number.parseInt(sizeHex ?? "", 16);
    if (!Number.isFinite(size) || size < 0) throw bad();
    const data = raw.subarray(eol + 2, eol + 2 + size);
    if (data.length !== size) throw bad();
    if (signed) {
      const sig = /chunk-signature=([0-9a-f]{64})/.exec(ext.join(";"))?.[1];
      if (!sig || sig !== chunkSignature(signed, previous, data)) {
        throw new S3Error(
          403,
          "SignatureDoesNotMatch",
          "The request signature we calculated does not match the signature you provided.",
        );
      }
      previous = sig;
    }
    pos = eol + 2 + size;
    if (size === 0) break;
    out.push(data);
    if (raw.subarray(pos, pos + 2).toString() !== "\r\n") throw bad();
    pos += 2;
  }
  const trailers: Record<string, string> = {};
  for (const line of raw.subarray(pos).toString("latin1").split("\r\n")) {
    const i = line.indexOf(":");
    if (i > 0) trailers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { data: Buffer.concat(out), trailers };
}

const DIGESTS: Record<string, (data: Buffer) => string> = {
  crc32: (d) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(crc32(d) >>> 0);
    return b.toString("base64");
  },
  sha256: (d) => createHash("sha256").update(d).digest("base64"),
  sha1: (d) => createHash("sha1").update(d).digest("base64"),
};

/**
 * Reads a signed request's body as S3 does: the payload hash or aws-chunked signatures checked,
 * `Content-MD5` and `x-amz-checksum-*` (header or trailer) verified. The `r2` flavour refuses
 * the flexible checksums, as R2, B2 and older MinIO do.
 */
export async function readPayload(
  req: FastifyRequest,
  signed: SignedContext,
  flavor: S3Flavor,
  cutAfter?: number,
): Promise<Payload> {
  const raw = await readRaw(req, cutAfter);
  const mode = signed.payloadHash;
  let data: Buffer;
  let trailers: Record<string, string> = {};
  if (mode.startsWith("STREAMING-")) {
    if (flavor === "r2" && mode.endsWith("-TRAILER")) {
      throw new S3Error(
        501,
        "NotImplemented",
        `x-amz-content-sha256 value ${mode} is not implemented`,
      );
    }
    ({ data, trailers } = decodeChunked(
      raw,
      mode.startsWith("STREAMING-AWS4-HMAC-SHA256-PAYLOAD") ? signed : null,
    ));
    const declared = req.headers["x-amz-decoded-content-length"];
    if (declared !== undefined && Number(declared) !== data.length) {
      throw new S3Error(
        400,
        "IncompleteBody",
        "You did not provide the number of bytes specified by the Content-Length HTTP header.",
      );
    }
  } else {
    data = raw;
    if (mode !== "UNSIGNED-PAYLOAD" && sha256hex(data) !== mode) {
      throw new S3Error(
        400,
        "XAmzContentSHA256Mismatch",
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
      );
    }
  }
  const md5 = req.headers["content-md5"];
  if (typeof md5 === "string" && createHash("md5").update(data).digest("base64") !== md5) {
    throw new S3Error(
      400,
      "BadDigest",
      "The Content-MD5 you specified did not match what we received.",
    );
  }
  const checksums: Record<string, string> = {};
  const given = { ...trailers };
  for (const [name, value] of Object.entries(req.headers)) {
    if (
      name.startsWith("x-amz-checksum-") &&
      name !== "x-amz-checksum-type" &&
      typeof value === "string"
    )
      given[name] = value;
  }
  for (const [name, value] of Object.entries(given)) {
    if (!name.startsWith("x-amz-checksum-")) continue;
    if (flavor === "r2") {
      throw new S3Error(
        501,
        "NotImplemented",
        `Header '${name}' with value '${value}' not implemented`,
      );
    }
    const algorithm = name.slice("x-amz-checksum-".length);
    const digest = DIGESTS[algorithm];
    if (digest && digest(data) !== value) {
      throw new S3Error(
        400,
        "BadDigest",
        `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
      );
    }
    checksums[algorithm] = value;
  }
  return { data, checksums };
}
