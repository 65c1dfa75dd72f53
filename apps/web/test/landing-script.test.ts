import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TOKEN_KEY } from "../src/lib/session.ts";

/** public/landing.js is the prerendered landing page's only script; it is plain JavaScript. */
describe("landing.js", () => {
  it("reads the session from the key the app stores it under", () => {
    const script = readFileSync(join(import.meta.dirname, "../public/landing.js"), "utf8");
    expect(script).toContain(`localStorage.getItem("${TOKEN_KEY}")`);
  });
});
