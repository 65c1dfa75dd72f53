/**
 * Every kind of mail Keepsake sends. A message names its category; the category decides
 * whether the person may turn it off (non-essential ones carry a one-click unsubscribe), whether
 * it is on when they never chose, and the footer line that says why they got it.
 *
 * To add a category: add an entry here (the key is stored in mail_outbox.category and
 * mail_preferences.category, so never rename one).
 */
export const MAIL_CATEGORIES = {
  /** Password resets, address verification, e-mail changes: always sent, never unsubscribable. */
  account: {
    essential: true,
    defaultOn: true,
    label: "Account security",
    why: "You are receiving this e-mail because of a request made for your Keepsake account.",
  },
  /** Replies to a message sent through the contact form. */
  contact: {
    essential: true,
    defaultOn: true,
    label: "Replies to your messages",
    why: "You are receiving this e-mail because you wrote to Keepsake through our contact form.",
  },
  /** The status page's confirmation mail (sent to an address that has not opted in yet). */
  status_confirm: {
    essential: true,
    defaultOn: true,
    label: "Status subscription confirmation",
    why: "You are receiving this e-mail because someone asked to subscribe this address to Keepsake status updates.",
  },
  /** Incidents opened and resolved, to confirmed status-page subscribers. */
  status: {
    essential: false,
    defaultOn: true,
    label: "Status updates",
    why: "You are receiving this e-mail because you subscribed to Keepsake status updates.",
  },
  // --- Alerts and the weekly digest (notifications area, notifications/alerts.ts) ---------
  alert_connection: {
    essential: false,
    defaultOn: true,
    label: "Connection alerts",
    why: "You are receiving this e-mail because a connection your Keepsake backups use needs you.",
  },
  alert_backup_failures: {
    essential: false,
    defaultOn: true,
    label: "Failing backups",
    why: "You are receiving this e-mail because backups of one of your accounts keep failing (at most one such e-mail per account per day).",
  },
  alert_drive_full: {
    essential: false,
    defaultOn: true,
    label: "Google Drive full",
    why: "You are receiving this e-mail because your Google Drive has no room for your backups.",
  },
  alert_sync_stale: {
    essential: false,
    defaultOn: true,
    label: "Backups not running",
    why: "You are receiving this e-mail because one of your accounts has not been backed up for a day.",
  },
  alert_stories: {
    essential: false,
    defaultOn: true,
    label: "Stories that could not be saved",
    why: "You are receiving this e-mail because stories expired before Keepsake could save them.",
  },
  alert_billing: {
    essential: false,
    defaultOn: true,
    label: "Billing alerts",
    why: "You are receiving this e-mail because of a change to your Keepsake subscription.",
  },
  digest_weekly: {
    essential: false,
    defaultOn: false,
    label: "Weekly digest",
    why: "You are receiving this e-mail because you turned on Keepsake's weekly digest.",
  },
} as const satisfies Record<string, MailCategoryInfo>;

export interface MailCategoryInfo {
  /** True: always sent to the address given; no unsubscribe. */
  essential: boolean;
  /** Whether a recipient who never chose gets it. */
  defaultOn: boolean;
  /** The category's name on the unsubscribe page and in settings. */
  label: string;
  /** The footer line saying why the person got this e-mail. */
  why: string;
}

export type MailCategory = keyof typeof MAIL_CATEGORIES;

export function isMailCategory(value: string): value is MailCategory {
  return Object.hasOwn(MAIL_CATEGORIES, value);
}

export function categoryInfo(category: MailCategory): MailCategoryInfo {
  return MAIL_CATEGORIES[category];
}
