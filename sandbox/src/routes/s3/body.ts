import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { crc32 } from "node:zlib";
import type { FastifyRequest } from "fastify";
import { writePieces } from "../../blob-file.ts";
import type { Ctx } from "../../context.ts";
import { chunkSignature, S3Error, type SignedContext } from "./sigv4.ts";
import { blobPath, corruptInPlace, md5hex } from "./store.ts";

/** The most one request body may bring here (an aws-chunked one is held whole to decode it). */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;

/** What S3 and its kin differ in: AWS takes the SDK's checksums; R2, B2 and older MinIO refuse them. */
export type S3Flavor = "aws" | "r2";

export interface Payload {
  data: Buffer;
  /** The md5 of `data` (hex): the ETag it makes. */
  md5: string;
  /** Checksums given in headers or the trailer, verified, by algorithm (`crc32`, `sha256`…). */
  checksums: Record<string, string>;
}

/** The connection was cut on purpose (a control rule) after some of the body arrived. */
export class BodyCut extends Error {}

/**
 * A request's body, piece by piece as it arrives: the connection dropped (`BodyCut`) once more
 * than `cutAfter` bytes arrived (a control rule), EntityTooLarge past `MAX_BODY_BYTES`.
 */
async function* bodyPieces(req: FastifyRequest, cutAfter: number | undefined) {
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
    yield chunk as Buffer;
  }
}

async function readRaw(req: FastifyRequest, cutAfter: number | undefined): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const piece of bodyPieces(req, cutAfter)) parts.push(piece);
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

/** Incremental digests of the flexible checksums S3 verifies (others are kept unverified). */
interface Digest {
  update(d: Buffer): void;
  digest(): string;
}

const DIGESTS: Record<string, () => Digest> = {
  crc32: () => {
    let value = 0;
    return {
      update: (d) => {
        value = crc32(d, value);
      },
      digest: () => {
        const b = Buffer.alloc(4);
        b.writeUInt32BE(value >>> 0);
        return b.toString("base64");
      },
    };
  },
  sha256: () => hashOf("sha256"),
  sha1: () => hashOf("sha1"),
};

function hashOf(algorithm: string): Digest {
  const h = createHash(algorithm);
  return {
    update: (d) => {
      h.update(d);
    },
    digest: () => h.digest("base64"),
  };
}

/**
 * What S3 checks of a payload, fed its bytes as they arrive: the signed payload hash (unless
 * `UNSIGNED-PAYLOAD` or aws-chunked, whose chunks are checked as decoded), `Content-MD5` and the
 * `x-amz-checksum-*` given in headers or the trailer. The `r2` flavour refuses the flexible
 * checksums, as R2, B2 and older MinIO do. `verify` throws S3's error for the first mismatch.
 */
function payloadChecks(
  req: FastifyRequest,
  signed: SignedContext,
  flavor: S3Flavor,
  trailers: Record<string, string>,
) {
  const mode = signed.payloadHash;
  const payload =
    mode !== "UNSIGNED-PAYLOAD" && !mode.startsWith("STREAMING-") ? createHash("sha256") : null;
  const contentMd5 = req.headers["content-md5"];
  // Always: it is also the ETag of what is stored.
  const md5 = createHash("md5");
  const given = { ...trailers };
  for (const [name, value] of Object.entries(req.headers)) {
    if (
      name.startsWith("x-amz-checksum-") &&
      name !== "x-amz-checksum-type" &&
      typeof value === "string"
    )
      given[name] = value;
  }
  const checksums: Record<string, string> = {};
  const digests: { algorithm: string; value: string; d: Digest }[] = [];
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
    const make = DIGESTS[algorithm];
    if (make) digests.push({ algorithm, value, d: make() });
    checksums[algorithm] = value;
  }
  return {
    update(data: Buffer) {
      payload?.update(data);
      md5.update(data);
      for (const x of digests) x.d.update(data);
    },
    /**
     * The checksums given (all verified that S3 verifies) and the bytes' md5 (hex), or S3's
     * error for a mismatch.
     */
    verify(): { checksums: Record<string, string>; md5: string } {
      if (payload && payload.digest("hex") !== mode) {
        throw new S3Error(
          400,
          "XAmzContentSHA256Mismatch",
          "The provided 'x-amz-content-sha256' header does not match what was computed.",
        );
      }
      const digest = md5.digest();
      if (typeof contentMd5 === "string" && digest.toString("base64") !== contentMd5) {
        throw new S3Error(
          400,
          "BadDigest",
          "The Content-MD5 you specified did not match what we received.",
        );
      }
      for (const x of digests) {
        if (x.d.digest() !== x.value) {
          throw new S3Error(
            400,
            "BadDigest",
            `The ${x.algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
          );
        }
      }
      return { checksums, md5: digest.toString("hex") };
    },
  };
}

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
  }
  const checks = payloadChecks(req, signed, flavor, trailers);
  checks.update(data);
  return { data, ...checks.verify() };
}

/** A payload stored as a blob: its size, the md5 of what is stored (the ETag) and its checksums. */
export interface StoredPayload {
  size: number;
  md5: string;
  checksums: Record<string, string>;
}

/**
 * Reads a PutObject's or UploadPart's payload into the blob `blob`, checked as `readPayload`
 * checks it. A plain body (not aws-chunked) is written as it arrives and never held whole, so
 * what the store costs here depends on the bytes, not on how they are split into requests, as
 * on a real store. A corrupted write (the control API's) flips the stored first byte
 * (`corruptInPlace`). `admit` (the store's own refusals: a condition, no room) runs once the
 * size is known; nothing is left at `blob` when the payload is refused or cut.
 */
export async function storePayload(
  ctx: Ctx,
  req: FastifyRequest,
  signed: SignedContext,
  cutAfter: number | undefined,
  blob: string,
  admit: (size: number) => void,
): Promise<StoredPayload> {
  const path = blobPath(ctx, blob);
  try {
    let size: number;
    let given: { checksums: Record<string, string>; md5: string };
    if (signed.payloadHash.startsWith("STREAMING-")) {
      const { data, ...rest } = await readPayload(req, signed, ctx.s3Flavor, cutAfter);
      admit(data.length);
      writeFileSync(path, data);
      size = data.length;
      given = rest;
    } else {
      const checks = payloadChecks(req, signed, ctx.s3Flavor, {});
      size = await writePieces(bodyPieces(req, cutAfter), { path, at: 0, onPiece: checks.update });
      given = checks.verify();
      admit(size);
    }
    // A corrupted write (the control API's, rare): the ETag is the md5 of what is stored.
    const md5 = corruptInPlace(ctx, blob) ? md5hex(readFileSync(path)) : given.md5;
    return { size, md5, checksums: given.checksums };
  } catch (err) {
    rmSync(path, { force: true });
    throw err;
  }
}
