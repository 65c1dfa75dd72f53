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

/** SQLSTATEs of a database that cannot take us now: too many connections, starting or stopping. */
const UNAVAILABLE_CODES = new Set(["53300", "57P01", "57P02", "57P03"]);
const UNAVAILABLE_MESSAGES = [
  "timeout exceeded when trying to connect", // no pool connection came free in time
  "Connection terminated due to connection timeout",
  "Connection terminated unexpectedly",
];

/**
 * Whether a failure is the database being out of reach or full (no pooled connection came free
 * in time, too many clients, a connection refused or dropped), not a fault of the request: it
 * answers 503 with Retry-After, never 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || code.startsWith("08")))
    return true;
  if (code === "ECONNREFUSED" || code === "ECONNRESET") return true;
  return UNAVAILABLE_MESSAGES.includes(err.message);
}

/** Seconds a client is asked to wait when the database cannot take the request. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export function sendDatabaseUnavailable(reply: FastifyReply) {
  reply.header("Retry-After", String(DATABASE_RETRY_AFTER_SECONDS));
  return reply
    .code(503)
    .send({ detail: "The service is busy right now; try again in a few seconds." });
}
