import {
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from "fastify";
import { pino } from "pino";
import { REDACT } from "../lib/logger.ts";

const SECRET_PARAMS =
  /([?&](?:code|state|token|access_token|refresh_token|id_token|client_secret|api_key|apikey|key)=)[^&#]*/gi;
/** An API key wherever it appears (keys are refused in URLs, but a client may still send one). */
const API_KEY = /ks_live_[A-Za-z0-9_-]+/g;

/** A URL fit for a log line: the values of secret-bearing parameters are replaced. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, "$1[redacted]").replace(API_KEY, "ks_live_[redacted]");
}

/**
 * pino options: JSON lines, request ids, and no password, token or cookie ever written. Lines
 * go to stdout asynchronously, so under load many lines leave in one write instead of one
 * blocking write each.
 */
export function loggerOptions(level: string): FastifyServerOptions["logger"] {
  return {
    level,
    redact: REDACT,
    stream: pino.destination({ dest: 1, sync: false }),
    serializers: {
      req(req) {
        return {
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
          userAgent: req.headers["user-agent"],
        };
      },
    },
  };
}

/**
 * One line per request, when it is answered (Fastify's default writes two): the request (URL
 * redacted), the status and the time taken. Errors are logged as Fastify logs them.
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest() {}
  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    if (error) return super.requestCompleted(error, request, reply);
    reply.log.info(
      { req: request, res: reply, responseTime: reply.elapsedTime },
      "request completed",
    );
  }
}
