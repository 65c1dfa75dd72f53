import type { FastifyReply } from "fastify";
import type { AppError, ErrorKind } from "../lib/errors.ts";

/** The one place a domain error becomes an HTTP answer. */
const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid: 422,
  too_many: 429,
  upstream: 502,
  unavailable: 503,
};

export function statusOf(kind: ErrorKind): number {
  return STATUS[kind];
}

export function sendAppError(reply: FastifyReply, error: AppError) {
  const { retryAfterSeconds, challenge } = error.options;
  if (retryAfterSeconds !== undefined) reply.header("Retry-After", String(retryAfterSeconds));
  if (challenge) reply.header("WWW-Authenticate", challenge);
  return reply.code(STATUS[error.kind]).send({ detail: error.message });
}
