import { existsSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";

/**
 * Serves the built SPA: hashed assets cached for a year, everything else revalidated,
 * `landing.html` for `/`, and `index.html` for any other non-API path the router owns
 * (history fallback).
 */
export async function registerSpa(app: FastifyInstance, distDir: string) {
  const hasBuild = existsSync(join(distDir, "index.html"));
  if (hasBuild) {
    await app.register(fastifyStatic, {
      root: distDir,
      // Files are looked up per request, so a rebuild is served without a restart.
      wildcard: true,
      // `/` is the prerendered landing page when the build made one (apps/web/scripts/build.ts).
      index: ["landing.html", "index.html"],
      setHeaders(res, path) {
        res.header(
          "Cache-Control",
          path.includes(`${join(distDir, "assets")}`)
            ? "public, max-age=31536000, immutable"
            : "no-cache",
        );
      },
    });
  }
  return hasBuild;
}

export const SPA_NOT_BUILT =
  "The web app is not built. Run `npm start` (it builds first) or `npm run build`.";
