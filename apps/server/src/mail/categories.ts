/**
 * Kinds of mail. A message's template names its category; the category decides whether the
 * person may turn it off (non-essential ones carry a one-click unsubscribe), whether it is on
 * when they never chose, and the footer line that says why they got it.
 *
 * The mail area's own categories are here; another area declares its categories beside the
 * templates it registers (the notifications area: one per alert, `notifications/alerts/`).
 * The key is stored in mail_outbox.category and mail_preferences.category: never rename one.
 */
export interface MailCategoryInfo {
  /** The stored name. */
  key: string;
  /** True: always sent to the address given; no unsubscribe. */
  essential: boolean;
  /** Whether a recipient who never chose gets it. */
  defaultOn: boolean;
  /** The category's name on the unsubscribe page and in settings. */
  label: string;
  /** The footer line saying why the person got this e-mail. */
  why: string;
}

/** Declares a category; the identity function keeps its key's literal type. */
export function defineCategory<const C extends MailCategoryInfo>(category: C): C {
  return category;
}

export const MAIL_CATEGORIES = {
  /** Password resets, address verification, e-mail changes: always sent, never unsubscribable. */
  account: defineCategory({
    key: "account",
    essential: true,
    defaultOn: true,
    label: "Account security",
    why: "You are receiving this e-mail because of a request made for your Keepsake account.",
  }),
  /** Replies to a message sent through the contact form. */
  contact: defineCategory({
    key: "contact",
    essential: true,
    defaultOn: true,
    label: "Replies to your messages",
    why: "You are receiving this e-mail because you wrote to Keepsake through our contact form.",
  }),
  /** The status page's confirmation mail (sent to an address that has not opted in yet). */
  status_confirm: defineCategory({
    key: "status_confirm",
    essential: true,
    defaultOn: true,
    label: "Status subscription confirmation",
    why: "You are receiving this e-mail because someone asked to subscribe this address to Keepsake status updates.",
  }),
  /** Incidents opened and resolved, to confirmed status-page subscribers. */
  status: defineCategory({
    key: "status",
    essential: false,
    defaultOn: true,
    label: "Status updates",
    why: "You are receiving this e-mail because you subscribed to Keepsake status updates.",
  }),
} as const;

/** A category's stored name (the mail area's own, or one another area registered). */
export type MailCategory = string;
