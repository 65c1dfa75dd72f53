import type { FastifyReply } from "fastify";
import { randomId } from "./util.ts";

/**
 * Each provider's error answer, in its own shape, and the errors the fault controls inject
 * (`Ctx.enter`, context.ts).
 */

/** Graph API messages by error code. */
export const GRAPH_MESSAGES: Record<number, string> = {
  1: "An unknown error has occurred.",
  2: "An unexpected error has occurred. Please retry your request later.",
  4: "(#4) Application request limit reached",
  10: "(#10) Application does not have permission for this action",
  17: "(#17) User request limit reached",
  32: "(#32) Page request limit reached",
  190: "Error validating access token: Session has expired.",
  200: "(#200) Permissions error",
  613: "(#613) Calls to this api have exceeded the rate limit.",
  80002:
    "(#80002) There have been too many calls to this Instagram account. Wait a bit and try again.",
};

export function fbtraceId(): string {
  return randomId(9).replace(/[-_]/g, "A");
}

export function sendGraphError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  extra: { type?: string; subcode?: number; transient?: boolean } = {},
): FastifyReply {
  const error: Record<string, unknown> = { message, type: extra.type ?? "OAuthException", code };
  if (extra.subcode !== undefined) error.error_subcode = extra.subcode;
  if (extra.transient) error.is_transient = true;
  error.fbtrace_id = fbtraceId();
  return reply.code(status).header("www-authenticate", 'OAuth "Facebook Platform"').send({ error });
}

export function sendDriveError(
  reply: FastifyReply,
  status: number,
  reason: string,
  message: string,
  extra: Record<string, string> = {},
): FastifyReply {
  const domain =
    reason.endsWith("RateLimitExceeded") || reason === "rateLimitExceeded"
      ? "usageLimits"
      : "global";
  return reply.code(status).send({
    error: { code: status, message, errors: [{ message, domain, reason, ...extra }] },
  });
}

/** S3's error document (`<Error><Code>…`); a HEAD answers the status alone, as S3 does. */
export function sendS3Error(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  extra: Record<string, string> = {},
): FastifyReply {
  const requestId = randomId(8).replace(/[-_]/g, "0").toUpperCase();
  reply.code(status).header("x-amz-request-id", requestId);
  if (reply.request.method === "HEAD") return reply.send();
  const esc = (v: string) => v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const fields = Object.entries({ Code: code, Message: message, ...extra, RequestId: requestId })
    .map(([k, v]) => `<${k}>${esc(v)}</${k}>`)
    .join("");
  return reply
    .type("application/xml")
    .send(`<?xml version="1.0" encoding="UTF-8"?>\n<Error>${fields}</Error>`);
}

/**
 * Dropbox's error answers: 401 for the token, 429 for rate limits (with `Retry-After`), 409 for a
 * route's own error (`error_summary` and the tagged `error`), 5xx as text.
 */
export function sendDropboxError(
  reply: FastifyReply,
  status: number,
  summary: string,
  error: unknown,
): FastifyReply {
  return reply.code(status).send({ error_summary: `${summary}/.`, error });
}

/** Microsoft Graph's error answer. */
export function sendGraphApiError(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
): FastifyReply {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "");
  const id = randomId(16);
  return reply.code(status).send({
    error: { code, message, innerError: { date: now, "request-id": id, "client-request-id": id } },
  });
}

/** Graph errors the fault controls inject (`onedrive:<code>`). */
export const ONEDRIVE_FAULTS: Record<string, [number, string]> = {
  activityLimitReached: [429, "The request has been throttled"],
  serviceNotAvailable: [503, "Service unavailable"],
  quotaLimitReached: [507, "Insufficient Space Available"],
  InvalidAuthenticationToken: [401, "Access token has expired or is not yet valid."],
  generalException: [500, "An unspecified error has occurred."],
  accessDenied: [403, "Access denied"],
};

/** Dropbox errors the fault controls inject (`dropbox:<tag>`). */
export function dropboxFault(reply: FastifyReply, tag: string, retryAfter: number | undefined) {
  if (tag === "too_many_write_operations" || tag === "too_many_requests") {
    const wait = retryAfter ?? 1;
    reply.header("retry-after", String(wait));
    return sendDropboxError(reply, 429, tag, { reason: { ".tag": tag }, retry_after: wait });
  }
  if (tag === "expired_access_token" || tag === "invalid_access_token") {
    return sendDropboxError(reply, 401, tag, { ".tag": tag });
  }
  if (tag === "no_write_permission") {
    return sendDropboxError(reply, 409, "path/no_write_permission", {
      ".tag": "path",
      reason: { ".tag": "no_write_permission" },
      upload_session_id: "",
    });
  }
  if (tag === "insufficient_space") {
    return sendDropboxError(reply, 409, "path/insufficient_space", {
      ".tag": "path",
      reason: { ".tag": "insufficient_space" },
      upload_session_id: "",
    });
  }
  return reply.code(500).type("text/plain").send("Internal Server Error");
}

/** S3 errors the fault controls inject (`s3:<Code>`): status and message, as S3 and its kin send them. */
export const S3_FAULTS: Record<string, [number, string]> = {
  SlowDown: [503, "Please reduce your request rate."],
  InternalError: [500, "We encountered an internal error. Please try again."],
  ServiceUnavailable: [503, "Service is unable to handle request."],
  AccessDenied: [403, "Access Denied"],
  NoSuchBucket: [404, "The specified bucket does not exist"],
  InvalidAccessKeyId: [403, "The AWS Access Key Id you provided does not exist in our records."],
  XMinioStorageFull: [507, "Storage backend has reached its minimum free drive threshold."],
  RequestTimeout: [
    400,
    "Your socket connection to the server was not read from or written to within the timeout period.",
  ],
};

export function sendStripeError(
  reply: FastifyReply,
  status: number,
  type: string,
  message: string,
  extra: { param?: string; code?: string } = {},
): FastifyReply {
  return reply
    .code(status)
    .header("request-id", `req_${randomId(10)}`)
    .send({ error: { type, message, ...extra } });
}
