/**
 * The mails an anonymous request can cause, each under a global hourly cap (MAIL_HOURLY_CAP_*):
 * whatever addresses and client addresses a flood uses, no more of them leave per hour.
 */
export const MAIL_CAP_GROUPS = [
  "contact",
  "status-confirm",
  "registration",
  "password-reset",
] as const;
export type MailCapGroup = (typeof MAIL_CAP_GROUPS)[number];

/** Why a message over its group's hourly cap was not recorded (`MailQueued.skipped`). */
export const CAPPED = "over the hourly cap";
