import type { JobSender } from "../jobs/job.ts";
import type { Clock } from "../lib/clock.ts";
import type { ServiceLog } from "../lib/log.ts";
import type { MailCapGroup } from "./caps.ts";
import type { MailRepository } from "./mail.repository.ts";
import type { SmtpSender } from "./smtp.ts";
import type { DataOf, NamedTemplate, TemplateRef } from "./templates/index.ts";

/** What the mail service is built from and what its callers pass (mail.service.ts). */

/** A user's address as the auth area knows it (injected: mail does not read users). */
export interface MailUserDirectory {
  address(userId: string): Promise<{ email: string; verified: boolean } | null>;
}

export interface MailSettings {
  /** One SMTP conversation's time limit (connect, greeting, each reply). */
  smtpTimeoutMs: number;
  /** The first retry's delay after a temporary SMTP failure; doubled each time (max 1 h). */
  retryBaseMs: number;
  /** Attempts before a message is marked failed. */
  maxAttempts: number;
  /** Messages per hour, across all recipients, of each group an anonymous request can cause. */
  capsPerHour: Record<MailCapGroup, number>;
}

export interface MailServiceDeps {
  repo: MailRepository;
  clock: Clock;
  queue: JobSender;
  smtp: SmtpSender;
  /** MAIL_FROM. */
  from: string;
  /** APP_URL: links in messages and the unsubscribe endpoint. */
  appUrl: string;
  /** Signs unsubscribe links. */
  secret: Uint8Array;
  /** ENCRYPTION_KEY: seals each message's template data (it may hold single-use links). */
  sealKey: Buffer;
  users: MailUserDirectory;
  settings: MailSettings;
  /** Templates other areas define (the alerts, with their categories), sent by reference. */
  templates?: readonly NamedTemplate<unknown>[];
  log?: ServiceLog;
}

/** What a caller asks to send; `key` names the event (one message per key, ever). */
export interface MailRequest<T extends TemplateRef> {
  key: string;
  /** One of the mail area's templates by name, or a registered template itself. */
  template: T;
  data: DataOf<T>;
  /** The global hourly cap this message counts against (mail an anonymous request causes). */
  cap?: MailCapGroup;
}

export type MailQueued =
  | { id: string; created: boolean }
  /** Not recorded: why, and (over an hourly cap) in how many seconds the cap frees up. */
  | { id: null; skipped: string; retryAfterSeconds?: number };
