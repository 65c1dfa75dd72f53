import swagger from "@fastify/swagger";
import type { FastifyInstance, FastifySchema } from "fastify";
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from "fastify-type-provider-zod";
import { z } from "zod";

export const V1_PREFIX = "/api/v1";
/** A route's `security` when it needs no session (register, login, public pages' data). */
export const PUBLIC: { [scheme: string]: string[] }[] = [];
const openApiDocument = z.record(z.string(), z.unknown());
type Doc = Record<string, unknown> & { paths?: Record<string, unknown> };

/** Every /api route as registered, with its schema (the schema-presence test reads it). */
export interface RouteEntry {
  method: string;
  url: string;
  schema: FastifySchema | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    routeCatalogue: RouteEntry[];
  }
}

/**
 * Zod schemas on routes: requests are validated and answers serialised with the contracts of
 * `packages/contracts`, and @fastify/swagger describes every route from the same schemas.
 * Called before any route is registered (swagger collects routes as they are added).
 */
export async function registerSchemas(app: FastifyInstance) {
  const catalogue: RouteEntry[] = [];
  app.decorate("routeCatalogue", catalogue);
  app.addHook("onRoute", (r) => {
    if (!r.url.startsWith("/api")) return;
    for (const method of [r.method].flat()) {
      if (method !== "HEAD") catalogue.push({ method, url: r.url, schema: r.schema });
    }
  });
  // An absent body is checked as `{}`, so a missing field is named as such (as before).
  app.setValidatorCompiler((route) => {
    const validate = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
    return route.httpPart === "body" ? (data) => validate(data ?? {}) : validate;
  });
  app.setSerializerCompiler(serializerCompiler);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Keepsake internal API",
        version: "1.0.0",
        description:
          "Every route of the API the Keepsake web app uses (session tokens). For contributors; " +
          "scripts use the public API at /api/v1 (see /api/v1/openapi.json).",
      },
      components: {
        securitySchemes: { session: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      },
      // Every route wants a session unless its schema says `security: PUBLIC`.
      security: [{ session: [] }],
    },
    transform: jsonSchemaTransform,
  });
}

/** The public API's document: the `/api/v1` paths of the whole one, relative to its base URL. */
export function publicDocument(whole: Doc, baseUrl: string): Doc {
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(whole.paths ?? {})) {
    if (path.startsWith(`${V1_PREFIX}/`)) paths[path.slice(V1_PREFIX.length)] = item;
  }
  return {
    openapi: whole.openapi,
    info: {
      title: "Keepsake API",
      version: "1.0.0",
      description:
        "Script Keepsake: list what is backed up, start a backup, retry a failed one. " +
        "Authenticate with an API key from Settings → API keys, sent as " +
        '`Authorization: Bearer ks_live_…`. Errors are `{"detail": "…"}`.',
    },
    servers: [{ url: `${baseUrl}${V1_PREFIX}` }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "An API key (ks_live_…)" },
      },
    },
    security: [{ apiKey: [] }],
  };
}

/** GET /api/openapi.json (whole API) and /api/v1/openapi.json (public API). */
export function registerOpenApiRoutes(app: FastifyInstance, baseUrl: string) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const schema = { hide: true, response: { 200: openApiDocument } };
  r.get("/api/openapi.json", { schema }, async () => app.swagger() as unknown as Doc);
  r.get(`${V1_PREFIX}/openapi.json`, { schema }, async () =>
    publicDocument(app.swagger() as unknown as Doc, baseUrl),
  );
}
