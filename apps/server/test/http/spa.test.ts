import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
const dist = mkdtempSync(join(tmpdir(), "keepsake-dist-"));
beforeAll(async () => {
  mkdirSync(join(dist, "assets"));
  writeFileSync(join(dist, "index.html"), "<!doctype html><div id=root></div>");
  writeFileSync(join(dist, "assets/app-1a2b.js"), "console.log(1)");
  t = await createTestApp({}, { webDist: dist });
});
afterAll(async () => {
  await t.close();
  rmSync(dist, { recursive: true, force: true });
});

describe("serving the SPA", () => {
  it("answers the router's paths with index.html, revalidated", async () => {
    for (const path of ["/", "/dashboard", "/settings?tab=profile"]) {
      const res = await t.app.inject({ method: "GET", url: path });
      expect(res.statusCode, path).toBe(200);
      expect(res.headers["content-type"]).toMatch(/text\/html/);
      expect(res.headers["cache-control"]).toBe("no-cache");
      expect(res.body).toContain("<div id=root>");
    }
  });

  it("serves the prerendered landing page at / when the build made one", async () => {
    writeFileSync(join(dist, "landing.html"), "<!doctype html><div id=root><h1>Landing</h1></div>");
    try {
      for (const path of ["/", "/?ref=ad"]) {
        const res = await t.app.inject({ method: "GET", url: path });
        expect(res.body, path).toContain("<h1>Landing</h1>");
        expect(res.headers["cache-control"]).toBe("no-cache");
      }
      const app = await t.app.inject({ method: "GET", url: "/dashboard" });
      expect(app.body).toBe("<!doctype html><div id=root></div>");
    } finally {
      rmSync(join(dist, "landing.html"));
    }
  });

  it("caches hashed assets for a year and serves ones built after start", async () => {
    const res = await t.app.inject({ method: "GET", url: "/assets/app-1a2b.js" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    writeFileSync(join(dist, "assets/app-3c4d.js"), "console.log(2)");
    const rebuilt = await t.app.inject({ method: "GET", url: "/assets/app-3c4d.js" });
    expect(rebuilt.statusCode).toBe(200);
    expect(rebuilt.headers["content-type"]).toMatch(/javascript/);
  });

  it("answers a missing asset with 404, not the HTML shell", async () => {
    const res = await t.app.inject({ method: "GET", url: "/assets/gone-0000.js" });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain("<div id=root>");
  });

  it("keeps API paths out of the fallback", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/nothing-here" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: "Not Found" });
  });
});
