import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { SANDBOX_CREDENTIALS } from "../../credentials.ts";

const S3 = SANDBOX_CREDENTIALS.s3;
/** S3 refuses a request signed more than 15 minutes away from its clock. */
const MAX_SKEW_MS = 15 * 60_000;

export class S3Error extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, string>;
  constructor(status: number, code: string, message: string, extra: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
  }
}

export const sha256hex = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) =>
  createHmac("sha256", key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it: every byte but the unreserved characters. */
export const uriEncode = (s: string) =>
  encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

export function signingKey(date: string, region: string): Buffer {
  const kDate = hmac(`AWS4${S3.secretAccessKey}`, date);
  return hmac(hmac(hmac(kDate, region), "s3"), "aws4_request");
}

/** What a verified request's signature chains on (aws-chunked payloads sign each chunk). */
export interface SignedContext {
  amzDate: string;
  scope: string;
  key: Buffer;
  seedSignature: string;
  /** `x-amz-content-sha256`: a hex digest, UNSIGNED-PAYLOAD or a STREAMING-… mode. */
  payloadHash: string;
}

function canonicalQuery(rawQuery: string): string {
  if (!rawQuery) return "";
  return rawQuery
    .split("&")
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf("=");
      const name = decodeURIComponent(i < 0 ? pair : pair.slice(0, i));
      const value = i < 0 ? "" : decodeURIComponent(pair.slice(i + 1).replace(/\+/g, "%20"));
      return [uriEncode(name), uriEncode(value)] as const;
    })
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([n, v]) => `${n}=${v}`)
    .join("&");
}

/**
 * Checks an `Authorization: AWS4-HMAC-SHA256 …` header as S3 does (header-signed requests only):
 * the access key, the scope, the time, and the signature over the canonical request.
 */
export function verifySigV4(req: FastifyRequest): SignedContext {
  const auth = req.headers.authorization;
  if (!auth) throw new S3Error(403, "AccessDenied", "Access Denied");
  const m =
    /^AWS4-HMAC-SHA256\s+Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request,\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(
      auth.trim(),
    );
  if (!m) {
    throw new S3Error(
      400,
      "AuthorizationHeaderMalformed",
      "The authorization header is malformed.",
    );
  }
  const [, accessKey, date, region, signedHeaders, signature] = m as unknown as string[];
  if (accessKey !== S3.accessKeyId) {
    throw new S3Error(
      403,
      "InvalidAccessKeyId",
      "The AWS Access Key Id you provided does not exist in our records.",
    );
  }
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  const t = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!t || !amzDate.startsWith(date!)) {
    throw new S3Error(403, "AccessDenied", "X-Amz-Date is missing or does not match the scope.");
  }
  const when = Date.UTC(+t[1]!, +t[2]! - 1, +t[3]!, +t[4]!, +t[5]!, +t[6]!);
  if (Math.abs(when - Date.now()) > MAX_SKEW_MS) {
    throw new S3Error(
      403,
      "RequestTimeTooSkewed",
      "The difference between the request time and the current time is too large.",
    );
  }
  const payloadHash = String(req.headers["x-amz-content-sha256"] ?? "");
  if (!payloadHash) {
    throw new S3Error(
      400,
      "InvalidRequest",
      "Missing required header for this request: x-amz-content-sha256",
    );
  }
  const names = signedHeaders!.split(";");
  if (!names.includes("host")) {
    throw new S3Error(403, "AccessDenied", "The host header must be signed.");
  }
  const url = req.raw.url ?? "/";
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? "" : url.slice(q + 1);
  const headers = names
    .map((n) => {
      const v = req.headers[n];
      const value = Array.isArray(v) ? v.join(",") : (v ?? "");
      return `${n}:${String(value).trim().replace(/\s+/g, " ")}\n`;
    })
    .join("");
  const canonical = [
    req.method,
    path,
    canonicalQuery(query),
    headers,
    signedHeaders,
    payloadHash,
  ].join("\n");
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256hex(canonical)].join("\n");
  const key = signingKey(date!, region!);
  const expected = createHmac("sha256", key).update(stringToSign).digest();
  const given = Buffer.from(signature!, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new S3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    );
  }
  return { amzDate, scope, key, seedSignature: signature!, payloadHash };
}

/** The signature of one aws-chunked chunk (STREAMING-AWS4-HMAC-SHA256-PAYLOAD). */
export function chunkSignature(ctx: SignedContext, previous: string, data: Buffer): string {
  const stringToSign = [
    "AWS4-HMAC-SHA256-PAYLOAD",
    ctx.amzDate,
    ctx.scope,
    previous,
    sha256hex(""),
    sha256hex(data),
  ].join("\n");
  return createHmac("sha256", ctx.key).update(stringToSign).digest("hex");
}
