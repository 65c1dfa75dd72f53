import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { redactUrl } from "../../src/http/logging.ts";
import { decryptSecret, encryptSecret } from "../../src/lib/crypto.ts";

describe("configuration", () => {
  it("has embedded defaults", () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(8080);
    expect(c.DATA_DIR).toBe("./data");
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.appUrl).toBe("http://localhost:8080");
  });

  it.each([
    ["PORT", "eighty"],
    ["DATABASE_URL", "mysql://x"],
    ["ENCRYPTION_KEY", "short"],
    ["LOG_LEVEL", "loud"],
  ])("a bad %s stops start-up with a message naming it", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});

describe("live mode on the embedded database", () => {
  const live = { INSTAGRAM_CLIENT_ID: "id", INSTAGRAM_CLIENT_SECRET: "secret" };

  it("stops start-up without DATABASE_URL, naming both ways out", () => {
    expect(() => loadConfig(live)).toThrow(ConfigError);
    expect(() => loadConfig(live)).toThrow(/DATABASE_URL: required in live mode/);
    expect(() => loadConfig(live)).toThrow(/EMBEDDED_DATABASE_LIVE=true/);
    expect(() => loadConfig({ ...live, EMBEDDED_DATABASE_LIVE: "false" })).toThrow(ConfigError);
  });

  it("starts with a PostgreSQL server, or with the explicit opt-in", () => {
    const server = {
      DATABASE_URL: "postgres://db/k",
      JWT_SECRET: "j".repeat(32),
      ENCRYPTION_KEY: "e".repeat(64),
    };
    expect(loadConfig({ ...live, ...server }).sandboxMode).toBe(false);
    const optedIn = loadConfig({ ...live, EMBEDDED_DATABASE_LIVE: "true" });
    expect(optedIn.sandboxMode).toBe(false);
    expect(optedIn.EMBEDDED_DATABASE_LIVE).toBe(true);
    expect(() => loadConfig({ ...live, EMBEDDED_DATABASE_LIVE: "maybe" })).toThrow(
      /EMBEDDED_DATABASE_LIVE/,
    );
  });

  it("sandbox mode needs no opt-in", () => {
    expect(loadConfig({}).EMBEDDED_DATABASE_LIVE).toBe(false);
  });
});

describe("secrets on a PostgreSQL server", () => {
  const DATABASE_URL = "postgres://keepsake@db.internal:5432/keepsake";
  const JWT_SECRET = randomBytes(32).toString("base64url");
  const ENCRYPTION_KEY = randomBytes(32).toString("hex");
  const messageOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error("loadConfig accepted the configuration");
  };

  it("without JWT_SECRET and ENCRYPTION_KEY, start-up stops naming both", () => {
    const message = messageOf({ DATABASE_URL });
    expect(message).toMatch(/JWT_SECRET: required when DATABASE_URL is set/);
    expect(message).toMatch(/ENCRYPTION_KEY: required when DATABASE_URL is set/);
  });

  it.each([
    ["JWT_SECRET", { ENCRYPTION_KEY }],
    ["ENCRYPTION_KEY", { JWT_SECRET }],
  ])("without %s, start-up stops naming only it", (missing, given) => {
    const message = messageOf({ DATABASE_URL, ...given });
    expect(message).toContain(`${missing}: required when DATABASE_URL is set`);
    const other = missing === "JWT_SECRET" ? "ENCRYPTION_KEY" : "JWT_SECRET";
    expect(message).not.toContain(other);
  });

  it("the server process exits 1 before touching the database, naming both", () => {
    const main = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
    const { JWT_SECRET: _j, ENCRYPTION_KEY: _e, ...env } = process.env;
    // No server listens there: the configuration stops it first.
    const run = spawnSync(process.execPath, [main, "api"], {
      env: {
        ...env,
        DATABASE_URL: "postgres://keepsake@127.0.0.1:1/keepsake",
        LOG_LEVEL: "silent",
      },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("JWT_SECRET: required when DATABASE_URL is set");
    expect(run.stderr).toContain("ENCRYPTION_KEY: required when DATABASE_URL is set");
  });

  it("a blank value counts as missing", () => {
    expect(messageOf({ DATABASE_URL, JWT_SECRET: "  ", ENCRYPTION_KEY })).toContain(
      "JWT_SECRET: required",
    );
  });

  it("with both it starts; the embedded database still generates them", () => {
    const c = loadConfig({ DATABASE_URL, JWT_SECRET, ENCRYPTION_KEY });
    expect(c.JWT_SECRET).toBe(JWT_SECRET);
    expect(c.ENCRYPTION_KEY).toBe(ENCRYPTION_KEY);
    const embedded = loadConfig({});
    expect(embedded.JWT_SECRET).toBeUndefined();
    expect(embedded.ENCRYPTION_KEY).toBeUndefined();
  });
});

describe("secrets", () => {
  it("redacts OAuth codes and tokens from logged URLs", () => {
    expect(redactUrl("/api/oauth/google/callback?code=4/abc&state=xyz&scope=email")).toBe(
      "/api/oauth/google/callback?code=[redacted]&state=[redacted]&scope=email",
    );
  });

  it("encrypts with AES-256-GCM and detects tampering", () => {
    const key = randomBytes(32);
    const sealed = encryptSecret(key, "IGQVJ-token");
    expect(sealed).not.toContain("IGQVJ");
    expect(decryptSecret(key, sealed)).toBe("IGQVJ-token");
    const parts = sealed.split(".");
    parts[3] = Buffer.from("forged").toString("base64url");
    expect(() => decryptSecret(key, parts.join("."))).toThrow();
  });
});
