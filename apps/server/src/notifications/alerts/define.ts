import type { Clock } from "../../lib/clock.ts";
import {
  type AlertMailData,
  alertTemplate,
  defineCategory,
  type MailCategoryInfo,
  type NamedTemplate,
} from "../../mail/index.ts";
import type {
  AlertSources,
  BillingEvent,
  FailedBackup,
  LostConnection,
  LostDestination,
} from "../alert-sources.ts";
import type { NotificationsRepository } from "../notifications.repository.ts";

/**
 * What an alert is, declared once per kind in `notifications/alerts/<name>.alert.ts` and listed
 * in `alerts/registry.ts`: its mail category (the toggle in Settings → Notifications) and its
 * e-mail template, the hooks and periodic checks that detect it, its copy, and how it resolves.
 */

/** A kind of alert: the mail category users turn on or off, and the template of its e-mail. */
export interface AlertKind {
  category: MailCategoryInfo;
  template: NamedTemplate<AlertMailData>;
  /** Its toggle in Settings → Notifications: a name and what it covers. */
  setting: { label: string; description: string };
}

/** Declares an alert kind's category (non-essential), its e-mail template and its toggle. */
export function alertKind(
  key: string,
  template: string,
  words: {
    /** The category's name on the unsubscribe page, and the e-mail footer's "why". */
    label: string;
    why: string;
    setting: { label: string; description: string };
    defaultOn?: boolean;
  },
): AlertKind {
  const category = defineCategory({
    key,
    essential: false,
    defaultOn: words.defaultOn ?? true,
    label: words.label,
    why: words.why,
  });
  return { category, template: alertTemplate(template, category), setting: words.setting };
}

/** One event a user is told about: in the app (the bell) and by e-mail. */
export interface Alert {
  /** The event's identity: one notification and one e-mail per key, ever. */
  key: string;
  /**
   * What it is about, without the event's details (`connection:google:<user>`): while an alert
   * of this cause is open no other is recorded; `resolve` closes it when the cause is fixed.
   */
  cause?: string;
  kind: AlertKind;
  title: string;
  /** Paragraphs: the first is what the bell shows (the health state's cause, where it has one). */
  paragraphs: string[];
  /** What happened, one line each (the e-mail lists them; the bell shows a count). */
  items?: string[];
  /** The fix: an in-app path ("/settings?tab=connections") or an absolute URL. */
  action: { label: string; path: string } | null;
}

/** What an alert's detection and resolution use. */
export interface AlertContext {
  /** Records the alert once (by key; one open per cause) in the bell and the outbox. */
  notify(userId: string, alert: Alert): Promise<{ created: boolean }>;
  /** An e-mail only, no bell entry (the weekly digest); once per key. */
  mailOnly(
    userId: string,
    key: string,
    alert: Omit<Alert, "key" | "cause">,
  ): Promise<{ id: string | null; created?: boolean }>;
  byKey: NotificationsRepository["findByKey"];
  /** The open alerts whose cause starts with `prefix`. */
  openAlerts: NotificationsRepository["openAlerts"];
  /** The causes are fixed: their open alerts are marked resolved (and read). */
  resolve(causes: string[]): Promise<number>;
  repo: NotificationsRepository;
  sources: AlertSources;
  clock: Clock;
}

/** An alert kind with everything that detects, words and resolves it. */
export interface AlertDefinition {
  kind: AlertKind;
  /** Events other areas report (each hook of every definition hears every event). */
  hooks?: {
    connectionLost?(lost: LostConnection, ctx: AlertContext): Promise<void>;
    /** A connection works again (the OAuth callback): Google when `accountIds` is undefined. */
    connectionsRestored?(
      userId: string,
      accountIds: string[] | undefined,
      ctx: AlertContext,
    ): Promise<void>;
    /** Dropbox, OneDrive or S3 storage refused its grant or keys (once per grant). */
    destinationLost?(lost: LostDestination, ctx: AlertContext): Promise<void>;
    /** Dropbox, OneDrive or S3 storage was connected again by the user. */
    destinationRestored?(
      userId: string,
      kind: LostDestination["kind"],
      ctx: AlertContext,
    ): Promise<void>;
    backupFailed?(failed: FailedBackup, ctx: AlertContext): Promise<void>;
    billingEvent?(event: BillingEvent, ctx: AlertContext): Promise<void>;
  };
  /** A periodic detection of the `alerts-check` job: its name and how many alerts it created. */
  check?: { name: string; run(ctx: AlertContext, now: Date): Promise<number> };
  /** The `alerts-check` job's resolution: the open causes of this kind that are fixed now. */
  fixed?(ctx: AlertContext, now: Date): Promise<string[]>;
}

/** Declares an alert; the identity function exists to check its shape. */
export function defineAlert(definition: AlertDefinition): AlertDefinition {
  return definition;
}

export const DAY_MS = 24 * 3600 * 1000;
