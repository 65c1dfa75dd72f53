import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ APP_URL: "https://keepsake.example" });
});
afterAll(async () => {
  await t?.close();
});

async function valid(doc: unknown) {
  const result = await new Validator().validate(doc as Parameters<Validator["validate"]>[0]);
  return result;
}

describe("schemas on routes and the OpenAPI documents", () => {
  it("every /api route declares a response schema, and its request parts", async () => {
    const seen = t.app.routeCatalogue;
    expect(seen.length).toBeGreaterThan(40);
    const missing = seen.filter((r) => {
      const s = r.schema as Record<string, unknown> | undefined;
      if (!s?.response) return true;
      if (r.url.includes("/:") && !s.params) return true;
      return false;
    });
    expect(missing.map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  it("serves the whole API as valid OpenAPI 3.1 at /api/openapi.json", async () => {
    const res = await t.call("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    const result = await valid(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(["/api/sync/posts", "/api/api-keys", "/api/v1/posts"]),
    );
    // A session is wanted everywhere but on the public routes.
    expect(res.body.security).toEqual([{ session: [] }]);
    expect(res.body.paths["/api/auth/login"].post.security).toEqual([]);
    expect(res.body.paths["/api/sync/posts"].get.security).toBeUndefined();
  });

  it("serves the public API alone at /api/v1/openapi.json, based at APP_URL/api/v1", async () => {
    const res = await t.call("GET", "/api/v1/openapi.json");
    expect(res.status).toBe(200);
    const result = await valid(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(res.body.servers).toEqual([{ url: "https://keepsake.example/api/v1" }]);
    expect(Object.keys(res.body.paths).sort()).toEqual([
      "/accounts",
      "/backups",
      "/backups/{post_id}/retry",
      "/health",
      "/posts",
      "/stats",
      "/sync",
      "/sync-jobs",
    ]);
    expect(res.body.paths["/posts"].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["limit", "cursor", "media_type", "search", "account_id"]),
    );
    expect(res.body.components.securitySchemes.apiKey).toMatchObject({ scheme: "bearer" });
  });
});
