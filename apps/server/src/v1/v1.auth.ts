import { apiKeyMessages as m } from "@keepsake/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ApiCaller, ApiKeysService } from "../api-keys/index.ts";
import { AppError } from "../lib/errors.ts";
import type { RateLimiter } from "./rate-limit.ts";

declare module "fastify" {
  interface FastifyRequest {
    apiCaller: ApiCaller | null;
  }
}

/**
 * The /api/v1 guard: an API key as `Authorization: Bearer` (never a session token, never a
 * query parameter), then the key's rate limit. Keys are never logged.
 */
export function apiKeyGuard(keys: ApiKeysService, limiter: RateLimiter) {
  return async function requireApiKey(req: FastifyRequest, reply: FastifyReply) {
    const h = req.headers.authorization;
    const match = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
    if (!match?.[1]) throw new AppError("unauthenticated", m.missing, { challenge: "Bearer" });
    const caller = await keys.authenticate(match[1]);
    const d = await limiter.hit(caller.keyId);
    const headers: Record<string, string> = {
      "RateLimit-Limit": String(d.limit),
      "RateLimit-Remaining": String(d.remaining),
      "RateLimit-Reset": String(d.resetSeconds),
    };
    reply.headers(headers);
    if (!d.allowed) {
      throw new AppError("too_many", m.rateLimited(d.resetSeconds), {
        retryAfterSeconds: d.resetSeconds,
      });
    }
    req.apiCaller = caller;
  };
}

export function callerOf(req: FastifyRequest): ApiCaller {
  if (!req.apiCaller) throw new AppError("unauthenticated", m.missing);
  return req.apiCaller;
}
