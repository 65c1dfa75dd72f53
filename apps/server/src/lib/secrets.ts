import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";

export interface Secrets {
  /** HMAC key for session tokens and OAuth state. */
  jwtSecret: Uint8Array;
  /** 32-byte AES-256-GCM key for OAuth tokens at rest. */
  encryptionKey: Buffer;
}

/**
 * Secrets come from the configuration; when unset (the embedded default) they are
 * generated once and kept in `DATA_DIR/secrets.json`, readable by the owner only.
 */
export function loadSecrets(
  config: Pick<Config, "DATA_DIR" | "JWT_SECRET" | "ENCRYPTION_KEY">,
): Secrets {
  let stored: { jwtSecret?: string; encryptionKey?: string } = {};
  const file = join(config.DATA_DIR, "secrets.json");
  if (!config.JWT_SECRET || !config.ENCRYPTION_KEY) {
    if (existsSync(file)) {
      stored = JSON.parse(readFileSync(file, "utf8"));
    } else {
      stored = {
        jwtSecret: randomBytes(48).toString("base64url"),
        encryptionKey: randomBytes(32).toString("hex"),
      };
      mkdirSync(config.DATA_DIR, { recursive: true });
      writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
      chmodSync(file, 0o600);
    }
  }
  const jwt = config.JWT_SECRET ?? stored.jwtSecret;
  const key = config.ENCRYPTION_KEY ?? stored.encryptionKey;
  if (!jwt || !key) throw new Error(`${file} is missing a secret; delete it to regenerate`);
  return { jwtSecret: new TextEncoder().encode(jwt), encryptionKey: Buffer.from(key, "hex") };
}
