import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { ServiceLog } from "../lib/log.ts";
import { asError } from "../lib/log.ts";
import type { MailService } from "../mail/index.ts";
import type { Alert } from "./alerts/define.ts";
import { NOTIFICATION_CATEGORIES, NOTIFICATION_CATEGORY_TEXT } from "./alerts/registry.ts";
import type { NotificationsRepository } from "./notifications.repository.ts";

export type { Alert } from "./alerts/define.ts";

export interface NotificationsDeps {
  repo: NotificationsRepository;
  clock: Clock;
  mail: Pick<MailService, "sendToUser" | "userPreferences" | "setUserPreference">;
  /** Whether the user's address is verified (alerts are e-mailed only then). */
  emailVerified(userId: string): Promise<boolean>;
  /** APP_URL: the e-mail's links to the fix. */
  appUrl: string;
  log?: ServiceLog;
}

/**
 * The notification centre: `notify` records an event once (by its key) in the app and sends
 * its e-mail through the mail area, which sends only to a verified address whose owner has not
 * turned the category off. The bell always gets the entry: the toggles are about e-mail.
 */
export function createNotificationsService(deps: NotificationsDeps) {
  const { repo, clock, mail } = deps;
  const urlOf = (path: string) => (/^https?:\/\//.test(path) ? path : `${deps.appUrl}${path}`);
  /** The alert's e-mail data: the same words as its bell entry. */
  const mailData = (alert: Omit<Alert, "key" | "cause">) => ({
    title: alert.title,
    preview: alert.paragraphs[0] ?? alert.title,
    paragraphs: alert.paragraphs,
    items: alert.items ?? [],
    action: alert.action ? { label: alert.action.label, url: urlOf(alert.action.path) } : null,
  });

  return {
    /**
     * Tells the user about one event, once. The e-mail is recorded first (the outbox is
     * idempotent by the same key), then the in-app entry: a crash between the two leaves the
     * entry to the next detection, which finds the e-mail already recorded and sends nothing.
     * An event already in the app is left alone (its e-mail was decided then).
     */
    async notify(userId: string, alert: Alert): Promise<{ created: boolean }> {
      if (await repo.findByKey(alert.key)) return { created: false };
      // One open alert per cause: a second detection while it is open adds nothing.
      if (alert.cause && (await repo.findOpen(alert.cause))) return { created: false };
      const summary = alert.paragraphs[0] ?? alert.title;
      let sent: { id: string | null; skipped: string | null } = { id: null, skipped: null };
      try {
        const queued = await mail.sendToUser(userId, {
          key: alert.key,
          template: alert.kind.template,
          data: mailData(alert),
        });
        sent =
          queued.id === null
            ? { id: null, skipped: queued.skipped }
            : { id: queued.id, skipped: null };
      } catch (err) {
        // The bell still tells the user; the next detection of the event tries the e-mail again
        // only if the entry was not recorded, so say what happened.
        deps.log?.error(
          { err: asError(err), key: alert.key },
          "alert e-mail could not be recorded",
        );
        sent = { id: null, skipped: "the e-mail could not be recorded" };
      }
      const items = alert.items ?? [];
      const row = await repo.insert(
        {
          user_id: userId,
          event_key: alert.key,
          category: alert.kind.category.key,
          title: alert.title,
          body: items.length > 1 ? `${summary} (${items.length} items)` : summary,
          action_label: alert.action?.label ?? null,
          action_path: alert.action?.path ?? null,
          cause: alert.cause ?? null,
        },
        clock.now(),
      );
      if (!row) return { created: false };
      await repo.recordMail(row.id, sent);
      return { created: true };
    },

    /** An e-mail only (the weekly digest): no bell entry. */
    async mailOnly(userId: string, key: string, alert: Omit<Alert, "key" | "cause">) {
      return mail.sendToUser(userId, { key, template: alert.kind.template, data: mailData(alert) });
    },

    byKey: (key: string) => repo.findByKey(key),

    /** The causes are fixed: their open alerts are marked resolved (and read). */
    resolve: (causes: string[]) => repo.resolve(causes, clock.now()),

    openAlerts: (prefix: string) => repo.openAlerts(prefix),

    /** The bell: the newest notifications and how many are unread. */
    async list(userId: string, limit = 30) {
      const [rows, unread] = await Promise.all([
        repo.list(userId, limit),
        repo.unreadCount(userId),
      ]);
      return {
        unread,
        notifications: rows.map((r) => ({
          id: r.id,
          category: r.category,
          title: r.title,
          body: r.body,
          action_label: r.action_label,
          action_path: r.action_path,
          created_at: new Date(r.created_at).toISOString(),
          read: r.read_at !== null,
          resolved_at: r.resolved_at ? new Date(r.resolved_at).toISOString() : null,
        })),
      };
    },

    unreadCount: (userId: string) => repo.unreadCount(userId),

    async markRead(userId: string, id: string) {
      if (!(await repo.markRead(userId, id, clock.now())))
        throw new AppError("not_found", "Notification not found");
      return { unread: await repo.unreadCount(userId) };
    },

    async markAllRead(userId: string) {
      const marked = await repo.markAllRead(userId, clock.now());
      return { marked, unread: 0 };
    },

    /** Settings → Notifications: each category's e-mail toggle. */
    preferences,

    async setPreference(userId: string, category: string, enabled: boolean) {
      if (!NOTIFICATION_CATEGORIES.includes(category))
        throw new AppError("not_found", `Unknown notification category ${category}`);
      await mail.setUserPreference(userId, category, enabled);
      return preferences(userId);
    },
  };

  async function preferences(userId: string) {
    const prefs = await mail.userPreferences(userId);
    return {
      categories: NOTIFICATION_CATEGORIES.map((c) => ({ category: c, enabled: prefs[c] ?? false })),
      category_text: NOTIFICATION_CATEGORY_TEXT,
      email_verified: await deps.emailVerified(userId),
    };
  }
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
