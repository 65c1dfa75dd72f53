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
  /** Each category's name and what it covers, as Settings → Notifications shows them. */
  category_text: z.record(z.string(), z.object({ label: z.string(), description: z.string() })),
  /** Alerts are e-mailed only to a verified address. */
  email_verified: z.boolean(),
});
export type NotificationPreferences = z.infer<typeof notificationPreferences>;

export const setNotificationPreference = z.object({
  category: z.string().min(1).max(64),
  enabled: z.boolean(),
});
