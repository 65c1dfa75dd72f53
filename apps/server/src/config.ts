import { CONTACT_DEFAULTS } from "@keepsake/contracts";
import { z } from "zod";
import { boolish, optionalString, trustProxy } from "./config-fields.ts";
import {
  PROVIDER_PAIRS,
  type ProviderSettings,
  providerEnv,
  providerSettings,
} from "./config-providers.ts";

export { type ProviderSettings, sandboxProviders } from "./config-providers.ts";

/**
 * The only reader of process.env. Every setting is parsed once, typed, and a bad
 * value stops start-up with a message naming the variable.
 */
const url = z.url({ error: "must be a URL such as http://localhost:8080" });

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default("localhost"),
  APP_URL: url.optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
      .optional(),
  ),
  /**
   * Live mode (provider credentials set) without DATABASE_URL runs on the embedded database
   * only with this explicit opt-in: one machine's database, backed up by nobody but its owner.
   */
  EMBEDDED_DATABASE_LIVE: boolish.default(false),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * How long a request (or job) waits for one of the pool's connections before it gives up: an
   * API request then answers 503 with Retry-After instead of waiting on.
   */
  DATABASE_POOL_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(600).default(10),
  /**
   * Liveness (`/api/health/live`) fails once the database has failed every health probe for this
   * long (0: never). Default 120 with the embedded database (only a restart mends it when it
   * wedges), 0 with DATABASE_URL (restarting the app does not mend a server).
   */
  LIVENESS_DATABASE_SECONDS: z.coerce.number().int().min(0).max(86_400).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  JWT_SECRET: optionalString.pipe(z.string().min(32, "must be at least 32 characters").optional()),
  ENCRYPTION_KEY: optionalString.pipe(
    z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (32 bytes)")
      .optional(),
  ),
  ACCESS_TOKEN_TTL_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(60 * 24 * 7),
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).default(30),
  LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).default(5),
  LOGIN_FAILURE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(15 * 60),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024),
  TRUST_PROXY: trustProxy,

  ...providerEnv,
  /**
   * How often the queue looks for jobs whose worker died (missed heartbeats) and retries them.
   * Lower it only where a fast takeover matters more than a little extra database work.
   */
  QUEUE_SUPERVISE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /**
   * On SIGTERM: how long an API process lets in-flight requests finish, and a worker its running
   * jobs, before it closes the connections / hands the jobs back to the other workers.
   */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(20),
  /**
   * /metrics is for operators: with a token, callers send it as a bearer token; without one,
   * only loopback callers may read it.
   */
  METRICS_TOKEN: optionalString.pipe(
    z.string().min(16, "must be at least 16 characters").optional(),
  ),
  /** A worker serves its /metrics on this port when set (it serves no other HTTP). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Contact details every page shows (footer, /contact, /help, legal pages, /careers, /press). */
  SUPPORT_EMAIL: z
    .email({ error: "must be an e-mail address" })
    .default(CONTACT_DEFAULTS.support_email),
  CAREERS_EMAIL: z
    .email({ error: "must be an e-mail address" })
    .default(CONTACT_DEFAULTS.careers_email),
  PRESS_EMAIL: z
    .email({ error: "must be an e-mail address" })
    .default(CONTACT_DEFAULTS.press_email),
  CONTACT_PHONE: z.string().min(3).max(40).default(CONTACT_DEFAULTS.phone),
  /** Contact form messages accepted per client address per hour. */
  CONTACT_MAX_PER_HOUR: z.coerce.number().int().min(1).default(5),
  /** New addresses one client address may subscribe to status updates per hour. */
  STATUS_SUBSCRIBE_MAX_PER_HOUR: z.coerce.number().int().min(1).default(5),
  // Billing (issue 9). All or none: a half configuration stops start-up naming the variable.
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_PRICE_PREMIUM_MONTHLY: optionalString,
  STRIPE_PRICE_PREMIUM_ANNUAL: optionalString,
  STRIPE_PRICE_PRO_MONTHLY: optionalString,
  STRIPE_PRICE_PRO_ANNUAL: optionalString,
  STRIPE_PRICE_AGENCY_MONTHLY: optionalString,
  STRIPE_PRICE_AGENCY_ANNUAL: optionalString,
  /** Stripe's API origin; the default is Stripe itself (tests point it at the sandbox). */
  STRIPE_API_URL: url.default("https://api.stripe.com"),
  /** Where the in-process sandbox listens in sandbox mode. */
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  /** Where the in-process sandbox's SMTP server listens in sandbox mode. */
  SANDBOX_SMTP_PORT: z.coerce.number().int().min(0).max(65535).default(8025),
  /**
   * The size of the in-process sandbox's one large demo reel (Lumen Studio's), in bytes; unset:
   * the sandbox's 300 MiB. The end-to-end suite makes it small, as nothing there is about size.
   */
  SANDBOX_LARGE_VIDEO_BYTES: z.coerce.number().int().min(1).optional(),
  /**
   * Whether a user's S3 endpoint may be an address on this server's network (loopback, private
   * ranges, link-local): unset, only in sandbox mode (its store is on loopback). A self-hosted
   * Keepsake writing to a MinIO beside it sets it; a public service must not (s3-endpoint.ts).
   */
  S3_PRIVATE_ENDPOINTS: boolish.optional(),
  /**
   * Mail (issue 29): the SMTP server, e.g. smtp://user:pass@smtp.example.com:587 or smtps://…:465.
   * Unset in sandbox mode: the sandbox's SMTP server. Unset in live mode: nothing is sent and each
   * message is recorded as failed ("mail is not configured").
   */
  SMTP_URL: optionalString.pipe(
    z
      .url({ error: "must be a URL such as smtp://user:password@smtp.example.com:587" })
      .regex(/^smtps?:\/\/[^/]/, "must start with smtp:// or smtps:// and name a host")
      .optional(),
  ),
  /** The sender of every message: an address, or a name and an address ("Keepsake <no-reply@…>"). */
  MAIL_FROM: z
    .string()
    .trim()
    .refine(validMailFrom, {
      error: 'must be an e-mail address or "Name <address>", e.g. Keepsake <no-reply@keepsake.app>',
    })
    .default("Keepsake <no-reply@keepsake.app>"),
  /** One SMTP conversation's time limit (connect, greeting, each reply). */
  MAIL_SMTP_TIMEOUT_SECONDS: z.coerce.number().min(0.5).max(600).default(20),
  /** Delay before the first retry of a message after a temporary SMTP failure (doubles, max 1 h). */
  MAIL_RETRY_BASE_SECONDS: z.coerce.number().min(0.1).max(3600).default(30),
  /** Password-reset and verification mails per e-mail address per hour (×4 per client address). */
  ACCOUNT_MAIL_MAX_PER_HOUR: z.coerce.number().int().min(1).default(3),
  /** Attempts of one message before it is recorded as failed. */
  MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  /**
   * Issue 35: global hourly caps, across every address and client, on the mails an anonymous
   * request can cause (contact acknowledgements, status confirmations, registration mails,
   * password resets). Over a cap the mail is not recorded (status subscriptions answer 429).
   */
  MAIL_HOURLY_CAP_CONTACT: z.coerce.number().int().min(1).default(100),
  MAIL_HOURLY_CAP_STATUS_CONFIRM: z.coerce.number().int().min(1).default(100),
  MAIL_HOURLY_CAP_REGISTRATION: z.coerce.number().int().min(1).default(300),
  MAIL_HOURLY_CAP_PASSWORD_RESET: z.coerce.number().int().min(1).default(300),
  /** Registrations per client address per hour (taken addresses included). */
  REGISTER_MAX_PER_HOUR: z.coerce.number().int().min(1).default(10),
  /** Registrations per hour from everyone together (taken addresses included). */
  REGISTER_GLOBAL_MAX_PER_HOUR: z.coerce.number().int().min(1).default(300),
});

/** `address` or `Name <address>`, the address a valid e-mail address. */
function validMailFrom(value: string): boolean {
  const m = /^(?:"?([^"<>]*)"?\s*)?<([^<>\s]+)>$/.exec(value);
  const address = m ? m[2] : value;
  return z.email().safeParse(address).success;
}

export type Env = z.infer<typeof envSchema>;

export type PaidTier = "premium" | "pro" | "agency";

/** Stripe credentials and the price id of each paid plan and interval. */
export interface BillingSettings {
  secretKey: string;
  webhookSecret: string;
  apiUrl: string;
  prices: Record<PaidTier, { monthly: string; annual: string }>;
}

export interface Config extends Env {
  /** The public origin of Keepsake, used to build OAuth redirect URIs. */
  appUrl: string;
  /** True when no provider credentials are configured: the sandbox stands in for the providers. */
  sandboxMode: boolean;
  providers: ProviderSettings;
  /** null: billing is off (no Stripe variables set and not in sandbox mode). */
  billing: BillingSettings | null;
}

const STRIPE_VARS = [
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "STRIPE_PRICE_PREMIUM_MONTHLY",
  "STRIPE_PRICE_PREMIUM_ANNUAL",
  "STRIPE_PRICE_PRO_MONTHLY",
  "STRIPE_PRICE_PRO_ANNUAL",
  "STRIPE_PRICE_AGENCY_MONTHLY",
  "STRIPE_PRICE_AGENCY_ANNUAL",
] as const;

/** Billing from the STRIPE_* variables: all of them, or none (then null). */
function billingSettings(e: Env): BillingSettings | null {
  const missing = STRIPE_VARS.filter((k) => e[k] === undefined);
  if (missing.length === STRIPE_VARS.length) return null;
  if (missing.length > 0) {
    const set = STRIPE_VARS.find((k) => e[k] !== undefined);
    const lines = missing.map((k) => `  ${k}: required when ${set} is set`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const v = (k: (typeof STRIPE_VARS)[number]) => e[k] as string;
  return {
    secretKey: v("STRIPE_SECRET_KEY"),
    webhookSecret: v("STRIPE_WEBHOOK_SECRET"),
    apiUrl: trim(e.STRIPE_API_URL),
    prices: {
      premium: {
        monthly: v("STRIPE_PRICE_PREMIUM_MONTHLY"),
        annual: v("STRIPE_PRICE_PREMIUM_ANNUAL"),
      },
      pro: { monthly: v("STRIPE_PRICE_PRO_MONTHLY"), annual: v("STRIPE_PRICE_PRO_ANNUAL") },
      agency: {
        monthly: v("STRIPE_PRICE_AGENCY_MONTHLY"),
        annual: v("STRIPE_PRICE_AGENCY_ANNUAL"),
      },
    },
  };
}

/** Billing against a sandbox origin with its fixed credentials and seeded prices. */
export function sandboxBilling(
  sandboxUrl: string,
  stripe: { secretKey: string; webhookSecret: string },
  prices: BillingSettings["prices"],
): BillingSettings {
  return {
    secretKey: stripe.secretKey,
    webhookSecret: stripe.webhookSecret,
    apiUrl: trim(sandboxUrl),
    prices,
  };
}

const trim = (u: string) => u.replace(/\/+$/, "");

export class ConfigError extends Error {}

/** The secrets every process on one DATABASE_URL must be given, each with a way to make one. */
const SHARED_SECRETS = [
  ["JWT_SECRET", "openssl rand -base64 48"],
  ["ENCRYPTION_KEY", "openssl rand -hex 32"],
] as const;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  // On a PostgreSQL server the processes share one database, and a container's DATA_DIR is
  // its own and goes with it: secrets generated there would differ between replicas and be
  // lost on every recreate (each sealed OAuth token unreadable, every session signed out).
  if (e.DATABASE_URL) {
    const missing = SHARED_SECRETS.filter(([name]) => e[name] === undefined);
    if (missing.length > 0) {
      const lines = missing.map(
        ([name, make]) => `  ${name}: required when DATABASE_URL is set (e.g. ${make})`,
      );
      throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
    }
  }
  const appUrl = (e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, "");
  const half = PROVIDER_PAIRS.filter(([a, b]) => (e[a] === undefined) !== (e[b] === undefined));
  if (half.length > 0) {
    const lines = half.map(([a, b]) => `  ${e[a] ? b : a}: required when ${e[a] ? a : b} is set`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const sandboxMode = PROVIDER_PAIRS.every(([a]) => e[a] === undefined);
  if (!sandboxMode && !e.DATABASE_URL && !e.EMBEDDED_DATABASE_LIVE) {
    throw new ConfigError(
      "Invalid configuration:\n  DATABASE_URL: required in live mode (provider credentials are set); set it to a PostgreSQL server, or set EMBEDDED_DATABASE_LIVE=true to run live on the embedded database under DATA_DIR",
    );
  }
  const providers = providerSettings(e);
  const billing = billingSettings(e);
  return { ...e, appUrl, sandboxMode, providers, billing };
}

/** Whether users' S3 endpoints must be public addresses (`S3_PRIVATE_ENDPOINTS`, s3-endpoint.ts). */
export const s3PublicOnly = (c: Pick<Config, "S3_PRIVATE_ENDPOINTS" | "sandboxMode">): boolean =>
  !(c.S3_PRIVATE_ENDPOINTS ?? c.sandboxMode);
