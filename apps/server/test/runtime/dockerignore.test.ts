import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import balena from "@balena/dockerignore";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
// A CommonJS module whose types say `export default`: Node hands its module.exports, the factory.
const dockerignore = balena as unknown as typeof balena.default;

/**
 * The image's build context leaves out environment files, wherever they are: they hold the
 * deployment's secrets (DATABASE_URL, JWT_SECRET, ENCRYPTION_KEY, provider keys). Matched as
 * Docker matches .dockerignore (@balena/dockerignore: Go's filepath.Match with `**`, `!`
 * exceptions, the last matching line wins).
 */
const rules = dockerignore().add(readFileSync(join(ROOT, ".dockerignore"), "utf8"));

describe(".dockerignore", () => {
  it.each([
    "keepsake.env",
    ".env",
    ".env.production",
    ".env.local",
    "deploy/keepsake.env",
    "apps/server/.env",
    "apps/server/.env.production",
  ])("leaves %s out of the image", (path) => {
    expect(rules.ignores(path)).toBe(true);
  });

  it.each([
    "Dockerfile",
    "package.json",
    "package-lock.json",
    "apps/server/src/config.ts",
    "apps/server/src/db/migrations/0800_billing.sql",
    "apps/web/index.html",
    "sandbox/src/index.ts",
  ])("keeps %s in the build context", (path) => {
    expect(rules.ignores(path)).toBe(false);
  });
});
