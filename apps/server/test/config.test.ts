import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";
import { redactUrl } from "../src/http/logging.ts";
import { decryptSecret, encryptSecret } from "../src/lib/crypto.ts";

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
