import { decryptSecret, encryptSecret } from "../../lib/crypto.ts";
import type { S3Settings } from "./s3.client.ts";

/**
 * An S3 destination as it is stored: everything in clear but the secret access key, sealed
 * like OAuth tokens (AES-256-GCM with ENCRYPTION_KEY, `lib/crypto.ts`).
 */
export interface StoredS3Settings extends Omit<S3Settings, "secretAccessKey"> {
  sealedSecretAccessKey: string;
}

export function sealS3Settings(key: Buffer, settings: S3Settings): StoredS3Settings {
  const { secretAccessKey, ...rest } = settings;
  return { ...rest, sealedSecretAccessKey: encryptSecret(key, secretAccessKey) };
}

export function openS3Settings(key: Buffer, stored: StoredS3Settings): S3Settings {
  const { sealedSecretAccessKey, ...rest } = stored;
  return { ...rest, secretAccessKey: decryptSecret(key, sealedSecretAccessKey) };
}

/**
 * The user's input, checked: an http(s) endpoint without credentials in it, a region, a bucket
 * name S3 accepts, a prefix without a leading slash (kept with one trailing slash). Answers
 * the reason when it is not usable.
 */
export function checkS3Settings(s: S3Settings): string | null {
  let url: URL;
  try {
    url = new URL(s.endpoint);
  } catch {
    return "The endpoint is not a URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "The endpoint must be http(s)";
  if (url.username || url.password) return "The endpoint must not contain credentials";
  if (!/^[a-z0-9-]{1,40}$/.test(s.region)) return "The region is not valid (e.g. us-east-1, auto)";
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(s.bucket)) return "The bucket name is not valid";
  if (s.prefix.startsWith("/") || s.prefix.includes("//") || s.prefix.length > 200)
    return "The prefix must not start with / (e.g. backups/keepsake/)";
  if (!s.accessKeyId.trim() || !s.secretAccessKey.trim())
    return "The access key and secret are required";
  return null;
}
