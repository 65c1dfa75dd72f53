// The S3 destination's form, in zod/mini (as auth-forms.ts): the web app's form loads its small
// core, not zod classic. The server takes the same schema as the body of
// `POST /api/destinations/s3` and `POST /api/destinations/s3/test` (destinations.ts re-exports it).
import { z } from "zod/mini";

const prefix = z.string().check(z.trim(), z.maxLength(200));

/** What the form holds: every field a string (the prefix may be empty). */
export const s3DestinationForm = z.object({
  endpoint: z
    .string()
    .check(z.trim(), z.url("Enter the endpoint as a URL, e.g. https://s3.eu-west-1.amazonaws.com")),
  region: z
    .string()
    .check(z.trim(), z.minLength(1, "Enter the region (auto for Cloudflare R2)"), z.maxLength(64)),
  bucket: z
    .string()
    .check(
      z.trim(),
      z.regex(
        /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
        "Enter the bucket's name (3–63 lowercase letters, digits, dots or hyphens)",
      ),
    ),
  prefix,
  access_key_id: z
    .string()
    .check(z.trim(), z.minLength(1, "Enter the access key ID"), z.maxLength(256)),
  secret_access_key: z
    .string()
    .check(z.minLength(1, "Enter the secret access key"), z.maxLength(512)),
});
export type S3DestinationForm = z.infer<typeof s3DestinationForm>;

/** `POST /api/destinations/s3` and `POST /api/destinations/s3/test`: the prefix may be left out. */
export const s3DestinationRequest = z.extend(s3DestinationForm, {
  prefix: z._default(prefix, ""),
});
export type S3DestinationRequest = z.input<typeof s3DestinationRequest>;
