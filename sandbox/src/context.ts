import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyReply, FastifyRequest } from "fastify";
import { GraphCallLog } from "./call-log.ts";
import { Clock } from "./clock.ts";
import {
  dropboxFault,
  GRAPH_MESSAGES,
  ONEDRIVE_FAULTS,
  S3_FAULTS,
  sendDriveError,
  sendGraphApiError,
  sendGraphError,
  sendS3Error,
  sendStripeError,
} from "./errors.ts";
import type { SandboxState, Store } from "./state.ts";
import { sleep } from "./util.ts";

export interface SandboxOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  publicUrl?: string;
  stripeWebhookUrl?: string;
  /**
   * Where the sandbox's Meta apps and Google project deliver what a demo user's choices cause
   * (the URLs a developer registers in the app dashboards): deauthorize and data-deletion
   * callbacks of the Instagram and Facebook apps, and the Cross-Account Protection receiver.
   */
  appCallbacks?: AppCallbacks;
  demoTimer?: boolean;
  /** Demo timer period; default 120 s. */
  demoTimerSeconds?: number;
  largeVideoBytes?: number;
  /** The SMTP server's port on `host` (0 = a free one, the default). */
  smtpPort?: number;
  /** Log requests (pino) — off by default. */
  logger?: boolean;
}

export interface AppCallbacks {
  instagramDeauthorize?: string;
  instagramDataDeletion?: string;
  facebookDeauthorize?: string;
  facebookDataDeletion?: string;
  googleSecurityEvents?: string;
}

export interface FaultRule {
  endpoint: string;
  remaining: number;
  error: string;
  retryAfter?: number;
  message?: string;
}

export interface CutRule {
  afterBytes: number;
  remaining: number;
  uploadId?: string;
}

export interface UsageOverride {
  appCallCount?: number;
  bucCallCount?: number;
  regainMinutes?: number;
}

export type Family =
  | "graph"
  | "cdn"
  | "google"
  | "drive"
  | "stripe"
  | "s3"
  | "dropbox"
  | "onedrive"
  | "page"
  | "control";

export function familyOf(endpoint: string): Family {
  if (endpoint.startsWith("ig.") || endpoint.startsWith("fb.")) return "graph";
  if (endpoint.startsWith("cdn")) return "cdn";
  if (endpoint.startsWith("google.")) return "google";
  if (endpoint.startsWith("drive.")) return "drive";
  if (endpoint.startsWith("stripe.")) return "stripe";
  if (endpoint.startsWith("s3.")) return "s3";
  if (endpoint.startsWith("dropbox.")) return "dropbox";
  if (endpoint.startsWith("onedrive.")) return "onedrive";
  if (endpoint.startsWith("control")) return "control";
  return "page";
}

export class Ctx {
  readonly clock = new Clock();
  readonly faults: FaultRule[] = [];
  readonly cuts: CutRule[] = [];
  /** Uploads still to store with a flipped byte (the md5 then differs from what was sent). */
  corruptUploads = 0;
  latency: { all: number; endpoints: Record<string, number> } = { all: 0, endpoints: {} };
  calls: Record<string, number> = {};
  /** Requests of each endpoint being handled now (asleep in latency, reading or answering). */
  readonly inFlight: Record<string, number> = {};
  /** The most requests of each endpoint handled at once since the call counts were reset. */
  peakInFlight: Record<string, number> = {};
  /**
   * Chunk requests of each resumable upload session still being handled (asleep in their
   * latency, reading a body or answering), by upload id. Runtime only: a reset leaves them, as
   * the requests themselves go on.
   */
  chunkRequests = new Map<string, number>();
  usage: UsageOverride = {};
  bucBudgetPerDay = 4800;
  appBudgetPerHour = 2000;
  readonly graphCalls = new GraphCallLog();
  cdnGeneration = 0;
  cdnTtlSeconds = 3 * 86_400;
  /** The CDN answers without Content-Length (chunked), as a server that streams may. */
  cdnUnsized = false;
  igTokenShape: "wrapped" | "flat" = "wrapped";
  /**
   * `GET /{ig-user-id}/stories` on graph.instagram.com (Instagram Login tokens): served, or
   * refused as Meta would refuse an operation the token's API does not support (#100, subcode 33)
   * or a permission it lacks (#10). Facebook Login tokens are always served.
   */
  igLoginStories: "served" | "unsupported" | "permission" = "served";
  webhookRetryBaseMs = 1000;
  webhookMaxAttempts = 6;
  /** The callback URLs in force (options.appCallbacks, changed by `POST /_control/app-callbacks`). */
  appCallbacks: AppCallbacks = {};
  /** The S3 store: which provider's quirks it has, cuts of request bodies, corrupted writes. */
  s3Flavor: "aws" | "r2" = "aws";
  s3Cuts: { afterBytes: number; remaining: number }[] = [];
  s3CorruptWrites = 0;
  readonly blobDir: string;
  readonly largeVideoBytes: number;
  readonly cdnSecret: string;

  readonly store: Store;
  readonly options: SandboxOptions;

  constructor(store: Store, options: SandboxOptions) {
    this.store = store;
    this.options = options;
    this.blobDir = options.dataDir
      ? join(options.dataDir, "drive")
      : mkdtempSync(join(tmpdir(), "keepsake-sandbox-drive-"));
    mkdirSync(this.blobDir, { recursive: true });
    this.largeVideoBytes = options.largeVideoBytes ?? 300 * 1024 * 1024;
    this.cdnSecret = "sandbox-cdn-signing-key";
    this.clock.offsetMs = store.state.clockOffsetMs;
    this.appCallbacks = { ...options.appCallbacks };
  }

  get state(): SandboxState {
    return this.store.state;
  }

  changed(): void {
    this.state.clockOffsetMs = this.clock.offsetMs;
    this.store.changed();
  }

  now(): number {
    return this.clock.now();
  }

  baseUrl(req: FastifyRequest): string {
    if (this.options.publicUrl) return this.options.publicUrl.replace(/\/$/, "");
    return `${req.protocol}://${req.headers.host ?? "127.0.0.1"}`;
  }

  /** Set by the server assembly: reseeds state and clears runtime controls. */
  resetHooks: (() => void | Promise<void>)[] = [];
  stopHooks: (() => void)[] = [];

  async reset(): Promise<void> {
    this.resetRuntime();
    for (const hook of this.resetHooks) await hook();
  }

  stop(): void {
    for (const hook of this.stopHooks) hook();
  }

  resetRuntime(): void {
    this.faults.length = 0;
    this.cuts.length = 0;
    this.corruptUploads = 0;
    this.latency = { all: 0, endpoints: {} };
    this.calls = {};
    this.peakInFlight = {};
    this.usage = {};
    this.bucBudgetPerDay = 4800;
    this.appBudgetPerHour = 2000;
    this.graphCalls.clear();
    this.cdnGeneration = 0;
    this.cdnTtlSeconds = 3 * 86_400;
    this.cdnUnsized = false;
    this.igTokenShape = "wrapped";
    this.igLoginStories = "served";
    this.webhookRetryBaseMs = 1000;
    this.webhookMaxAttempts = 6;
    this.s3Flavor = "aws";
    this.s3Cuts = [];
    this.s3CorruptWrites = 0;
    this.clock.offsetMs = 0;
  }

  /**
   * Every emulated endpoint starts here: counts the call, applies latency and injected faults.
   * Returns false when a fault answer was sent (the handler must stop).
   */
  async enter(req: FastifyRequest, reply: FastifyReply, endpoint: string): Promise<boolean> {
    this.calls[endpoint] = (this.calls[endpoint] ?? 0) + 1;
    const now = (this.inFlight[endpoint] ?? 0) + 1;
    this.inFlight[endpoint] = now;
    this.peakInFlight[endpoint] = Math.max(now, this.peakInFlight[endpoint] ?? 0);
    reply.raw.once("close", () => {
      this.inFlight[endpoint] = (this.inFlight[endpoint] ?? 1) - 1;
    });
    const delay = this.latency.endpoints[endpoint] ?? this.latency.all;
    if (delay > 0) await sleep(delay);
    const rule = this.faults.find((f) => f.remaining > 0 && matches(f.endpoint, endpoint));
    if (!rule) return true;
    rule.remaining--;
    if (rule.remaining <= 0) this.faults.splice(this.faults.indexOf(rule), 1);
    this.sendFault(req, reply, endpoint, rule);
    return false;
  }

  private sendFault(
    req: FastifyRequest,
    reply: FastifyReply,
    endpoint: string,
    rule: FaultRule,
  ): void {
    if (rule.retryAfter !== undefined) reply.header("retry-after", String(rule.retryAfter));
    const [kind = "http", arg = "500"] = rule.error.split(":");
    const family = familyOf(endpoint);
    if (kind === "reset") {
      req.raw.socket.destroy();
      reply.hijack();
      return;
    }
    if (kind === "graph") {
      const code = Number(arg);
      const throttle = [4, 17, 32, 613, 80002].includes(code);
      const status = throttle ? 403 : code === 190 ? 400 : code <= 2 ? 500 : 400;
      sendGraphError(
        reply,
        status,
        code,
        rule.message ?? GRAPH_MESSAGES[code] ?? `(#${code}) Error`,
        {
          type: code === 80002 ? "IGApiException" : "OAuthException",
          subcode: code === 190 ? 463 : undefined,
          transient: code <= 2 ? true : undefined,
        },
      );
      return;
    }
    if (kind === "drive") {
      const reasons: Record<string, [number, string]> = {
        rateLimitExceeded: [403, "Rate Limit Exceeded"],
        userRateLimitExceeded: [403, "User Rate Limit Exceeded"],
        storageQuotaExceeded: [403, "The user's Drive storage quota has been exceeded."],
        backendError: [500, "Internal Error"],
        notFound: [404, "File not found."],
        authError: [401, "Invalid Credentials"],
      };
      const [status, message] = reasons[arg] ?? [400, arg];
      sendDriveError(reply, status, arg, rule.message ?? message);
      return;
    }
    if (kind === "stripe") {
      if (arg === "rate_limit") {
        sendStripeError(
          reply,
          429,
          "invalid_request_error",
          "Too many requests made to the API too quickly",
          {
            code: "rate_limit",
          },
        );
      } else if (arg === "card_declined") {
        sendStripeError(reply, 402, "card_error", "Your card was declined.", {
          code: "card_declined",
        });
      } else {
        sendStripeError(reply, 500, "api_error", rule.message ?? "An unknown error occurred");
      }
      return;
    }
    if (kind === "onedrive") {
      const [status, message] = ONEDRIVE_FAULTS[arg] ?? [400, arg];
      if ((status === 429 || status === 503) && rule.retryAfter === undefined)
        reply.header("retry-after", "1");
      sendGraphApiError(reply, status, arg, rule.message ?? message);
      return;
    }
    if (kind === "dropbox") {
      dropboxFault(reply, arg, rule.retryAfter);
      return;
    }
    if (kind === "s3") {
      const [status, message] = S3_FAULTS[arg] ?? [400, arg];
      sendS3Error(reply, status, arg, rule.message ?? message);
      return;
    }
    if (kind === "google") {
      const status = arg === "invalid_client" ? 401 : arg === "temporarily_unavailable" ? 503 : 400;
      reply.code(status).send({ error: arg, error_description: rule.message ?? "Bad Request" });
      return;
    }
    // Generic HTTP status rendered in the family's shape.
    const status = Number(arg) || 500;
    if (family === "graph") {
      sendGraphError(reply, status, 2, GRAPH_MESSAGES[2]!, { transient: true });
    } else if (family === "drive") {
      if (status === 429)
        sendDriveError(reply, 429, "rateLimitExceeded", rule.message ?? "Rate Limit Exceeded");
      else sendDriveError(reply, status, "backendError", rule.message ?? "Internal Error");
    } else if (family === "stripe") {
      sendStripeError(reply, status, "api_error", rule.message ?? "An unknown error occurred");
    } else if (family === "google") {
      reply.code(status).send({ error: "internal_failure", error_description: "Backend Error" });
    } else if (family === "s3") {
      const code = status === 503 ? "SlowDown" : status >= 500 ? "InternalError" : "InvalidRequest";
      sendS3Error(reply, status, code, rule.message ?? S3_FAULTS[code]?.[1] ?? code);
    } else {
      reply
        .code(status)
        .type("text/plain")
        .send(rule.message ?? "Service Unavailable");
    }
  }
}

function matches(pattern: string, endpoint: string): boolean {
  if (pattern === "*" || pattern === endpoint) return true;
  return pattern.endsWith("*") && endpoint.startsWith(pattern.slice(0, -1));
}
