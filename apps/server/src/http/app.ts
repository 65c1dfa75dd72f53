import { randomUUID } from "node:crypto";
import helmet from "@fastify/helmet";
import Fastify, { type FastifyError, type FastifyInstance } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import type { Config } from "../config.ts";
import { AppError } from "../lib/errors.ts";
import { trustProxyOption } from "./client-address.ts";
import { isDatabaseUnavailable, sendAppError, sendDatabaseUnavailable } from "./errors.ts";
import { registerHealthRoutes } from "./health.ts";
import { loggerOptions, OneLineRequestLog } from "./logging.ts";
import { type ClusterSources, registerMetrics } from "./metrics.ts";
import { registerOpenApiRoutes, registerSchemas } from "./openapi.ts";
import { registerSpa, SPA_NOT_BUILT } from "./spa.ts";
import { frameworkErrors, rejectUnfitText } from "./validation.ts";

/** Browser features no page of ours uses, switched off for every page and any frame in it. */
const PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()";
/** The longest path segment (an id) the router reads; longer ones answer 414. */
const MAX_PARAM_LENGTH = 100;

const kib = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${Math.floor(bytes / 1024)} KiB`;

export interface AppOptions {
  /** The built SPA (apps/web/dist); when absent the API is served alone. */
  webDist?: string;
  /** Extra origins images and media may load from (provider CDNs, the sandbox). */
  mediaOrigins?: string[];
  logger?: boolean;
}

/**
 * What the HTTP app is built from: the composition root's configuration, database pool and queue,
 * the cluster's gauges for /metrics, and the areas' routes (registered in the root's order).
 * Nothing here names an area: `http/` is plumbing.
 */
export interface HttpRoot {
  config: Config;
  pool: Parameters<typeof registerHealthRoutes>[1]["pool"];
  queue: Parameters<typeof registerHealthRoutes>[1]["queue"];
  clusterMetrics: ClusterSources;
  registerRoutes(app: FastifyInstance): Promise<void>;
}

export async function buildApp(ctx: HttpRoot, options: AppOptions = {}) {
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(ctx.config.LOG_LEVEL),
    logController: new OneLineRequestLog(),
    bodyLimit: ctx.config.BODY_LIMIT_BYTES,
    trustProxy: trustProxyOption(ctx.config.TRUST_PROXY),
    requestIdHeader: "x-request-id",
    genReqId: () => randomUUID(),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrors(MAX_PARAM_LENGTH),
  });

  app.decorateRequest("principal", null);
  app.decorateRequest("apiCaller", null);
  app.addHook("onSend", async (req, reply) => {
    reply.header("x-request-id", req.id);
    reply.header("Permissions-Policy", PERMISSIONS_POLICY);
    // API answers carry tokens and private data: no cache keeps them unless a route says so.
    if (req.url.startsWith("/api/") && !reply.hasHeader("Cache-Control")) {
      reply.header("Cache-Control", "no-store");
    }
  });

  const media = options.mediaOrigins ?? [];
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:", "blob:", "https:", ...media],
        mediaSrc: ["'self'", "blob:", "https:", ...media],
        connectSrc: ["'self'"],
        fontSrc: ["'self'", "data:"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });

  app.setErrorHandler((error: FastifyError | AppError, req, reply) => {
    if (error instanceof AppError) {
      return sendAppError(reply, error);
    }
    // A request that does not match its route's schema: the first problem, as the services'
    // own checks answer it.
    if (hasZodFastifySchemaValidationErrors(error)) {
      return reply.code(422).send({ detail: error.validation[0]?.message ?? "Invalid request" });
    }
    const status = error.statusCode ?? 500;
    if (
      error.code === "FST_ERR_CTP_INVALID_JSON_BODY" ||
      (status === 400 && error instanceof SyntaxError)
    ) {
      return reply.code(400).send({ detail: "Malformed JSON body" });
    }
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      const limit = req.routeOptions.bodyLimit ?? ctx.config.BODY_LIMIT_BYTES;
      return reply
        .code(413)
        .send({ detail: `Request body is too large: at most ${kib(limit)} here` });
    }
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ detail: error.message });
    }
    if (isDatabaseUnavailable(error)) {
      req.log.warn({ err: error }, "the database cannot take the request");
      return sendDatabaseUnavailable(reply);
    }
    req.log.error({ err: error }, "request failed");
    return reply.code(500).send({ detail: "Internal server error" });
  });

  await registerSchemas(app);
  rejectUnfitText(app);
  registerMetrics(app, {
    token: ctx.config.METRICS_TOKEN,
    cluster: ctx.clusterMetrics,
  });
  registerHealthRoutes(app, {
    pool: ctx.pool,
    queue: ctx.queue,
    livenessDatabaseSeconds:
      ctx.config.LIVENESS_DATABASE_SECONDS ?? (ctx.config.DATABASE_URL ? 0 : 120),
  });

  await ctx.registerRoutes(app);
  registerOpenApiRoutes(app, ctx.config.appUrl);

  const spa = options.webDist ? await registerSpa(app, options.webDist) : false;
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0] ?? "";
    if (path === "/api" || path.startsWith("/api/") || req.method !== "GET") {
      return reply.code(404).send({ detail: "Not Found" });
    }
    // A missing hashed asset is a 404, never the HTML shell under a script's name.
    if (path.startsWith("/assets/")) return reply.code(404).type("text/plain").send("Not Found");
    if (!spa) return reply.code(503).type("text/plain").send(SPA_NOT_BUILT);
    return reply.header("Cache-Control", "no-cache").sendFile("index.html");
  });

  return app;
}
