import { z } from "zod";

/** The notification centre (issue 29): the bell, its list, Settings → Notifications. */

export const notificationItem = z.object({
  id: z.string(),
  category: z.string(),
  title: z.string(),
  body: z.string(),
  /** The fix: a button label and where it leads (an in-app path or an absolute URL). */
  action_label: z.string().nullable(),
  action_path: z.string().nullable(),
  created_at: z.string(),
  read: z.boolean(),
  /** When its cause was fixed (a reconnection, backups that succeed again); null while open. */
  resolved_at: z.string().nullable(),
});
export type NotificationItem = z.infer<typeof notificationItem>;

export const notificationsResponse = z.object({
  unread: z.number().int(),
  notifications: z.array(notificationItem),
});
export type NotificationsResponse = z.infer<typeof notificationsResponse>;

export const unreadCountResponse = z.object({ unread: z.number().int() });
export type UnreadCountResponse = z.infer<typeof unreadCountResponse>;

export const markAllReadResponse = z.object({ marked: z.number().int(), unread: z.number().int() });

export const notificationPreferences = z.object({
  categories: z.array(z.object({ category: z.string(), enabled: z.boolean() })),
  /** Alerts are e-mailed only to a verified address. */
  email_verified: z.boolean(),
});
export type NotificationPreferences = z.infer<typeof notificationPreferences>;

export const setNotificationPreference = z.object({
  category: z.string().min(1).max(64),
  enabled: z.boolean(),
});

/** Labels and descriptions of the categories, as Settings → Notifications shows them. */
export const NOTIFICATION_CATEGORY_TEXT: Record<string, { label: string; description: string }> = {
  alert_connection: {
    label: "Connection alerts",
    description:
      "Instagram or Google Drive access was revoked or expired, or an Instagram token will expire soon.",
  },
  alert_backup_failures: {
    label: "Failing backups",
    description:
      "Backups that keep failing on an account: at most one e-mail per account per day, with what failed.",
  },
  alert_drive_full: {
    label: "Google Drive full",
    description: "Your Drive has no room left for backups.",
  },
  alert_sync_stale: {
    label: "Backups not running",
    description: "No successful sync for 24 hours on a paid plan.",
  },
  alert_stories: {
    label: "Lost stories",
    description: "Stories that expired before they could be saved.",
  },
  alert_billing: {
    label: "Billing",
    description: "A failed payment, a plan change, accounts paused by a downgrade.",
  },
  digest_weekly: {
    label: "Weekly digest",
    description: "What was backed up, storage used, and anything that needs your attention.",
  },
};
