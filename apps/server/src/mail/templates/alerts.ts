import { createElement as h } from "react";
import type { MailCategory } from "../categories.ts";
import { Button, Heading, LinkLine, P, Quote } from "./layout.ts";
import { defineTemplate } from "./template.ts";

/**
 * Alerts and the weekly digest (the notifications area sends them, notifications/alerts.ts).
 * One shape for all: a heading, a few paragraphs, an optional list of what happened, and the
 * button to the fix. The text is written by the notifications area, so the in-app entry and
 * the e-mail say the same thing.
 */
export interface AlertMailData {
  title: string;
  /** The first line mail clients show beside the subject. */
  preview: string;
  paragraphs: string[];
  /** What happened, one line each (failed posts, lost stories…); may be empty. */
  items: string[];
  action: { label: string; url: string } | null;
}

const alertTemplate = (category: MailCategory) =>
  defineTemplate<AlertMailData>({
    category,
    subject: (d) => d.title,
    preview: (d) => d.preview,
    body: (d) => [
      h(Heading, { key: "h" }, d.title),
      ...d.paragraphs.map((p, i) => h(P, { key: `p${i}` }, p)),
      d.items.length > 0 ? h(Quote, { key: "q" }, d.items.join("\n")) : null,
      d.action ? h(Button, { key: "b", href: d.action.url }, d.action.label) : null,
      d.action ? h(LinkLine, { key: "l", href: d.action.url }) : null,
    ],
  });

export const alertConnectionTemplate = alertTemplate("alert_connection");
export const alertBackupFailuresTemplate = alertTemplate("alert_backup_failures");
export const alertDriveFullTemplate = alertTemplate("alert_drive_full");
export const alertSyncStaleTemplate = alertTemplate("alert_sync_stale");
export const alertStoriesTemplate = alertTemplate("alert_stories");
export const alertBillingTemplate = alertTemplate("alert_billing");
export const weeklyDigestTemplate = alertTemplate("digest_weekly");
