import { render } from "@react-email/render";
import { createElement } from "react";
import { categoryInfo } from "../categories.ts";
import {
  emailChangedTemplate,
  passwordChangedTemplate,
  passwordResetTemplate,
  registerTakenTemplate,
  verifyEmailTemplate,
} from "./account.ts";
import {
  alertBackupFailuresTemplate,
  alertBillingTemplate,
  alertConnectionTemplate,
  alertDriveFullTemplate,
  alertStoriesTemplate,
  alertSyncStaleTemplate,
  weeklyDigestTemplate,
} from "./alerts.ts";
import { Layout } from "./layout.ts";
import {
  contactAckTemplate,
  contactReplyTemplate,
  incidentTemplate,
  statusConfirmTemplate,
} from "./public.ts";
import type { MailTemplate } from "./template.ts";

/**
 * Every template by name (the name is stored in mail_outbox.template: never rename one). To add
 * one: write it with `defineTemplate` in a file of this folder and list it here.
 */
export const MAIL_TEMPLATES = {
  "verify-email": verifyEmailTemplate,
  "password-reset": passwordResetTemplate,
  "password-changed": passwordChangedTemplate,
  "email-changed": emailChangedTemplate,
  "register-taken": registerTakenTemplate,
  "status-confirm": statusConfirmTemplate,
  "status-incident": incidentTemplate,
  "contact-ack": contactAckTemplate,
  "contact-reply": contactReplyTemplate,
  // Alerts and the digest (notifications area).
  "alert-connection": alertConnectionTemplate,
  "alert-backup-failures": alertBackupFailuresTemplate,
  "alert-drive-full": alertDriveFullTemplate,
  "alert-sync-stale": alertSyncStaleTemplate,
  "alert-stories": alertStoriesTemplate,
  "alert-billing": alertBillingTemplate,
  "digest-weekly": weeklyDigestTemplate,
} as const;

export type TemplateName = keyof typeof MAIL_TEMPLATES;
export type TemplateData<N extends TemplateName> =
  (typeof MAIL_TEMPLATES)[N] extends MailTemplate<infer D> ? D : never;

export function isTemplateName(value: string): value is TemplateName {
  return Object.hasOwn(MAIL_TEMPLATES, value);
}

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

/** A template with its data as the HTML and text parts, in the layout with its footer. */
export async function renderMail(
  name: TemplateName,
  data: unknown,
  options: { appUrl: string; unsubscribeUrl?: string | undefined },
): Promise<RenderedMail> {
  const template = MAIL_TEMPLATES[name] as MailTemplate<unknown>;
  const element = createElement(
    Layout,
    {
      preview: template.preview(data),
      why: categoryInfo(template.category).why,
      unsubscribeUrl: options.unsubscribeUrl,
      appUrl: options.appUrl,
    },
    template.body(data, { appUrl: options.appUrl }),
  );
  const [html, text] = await Promise.all([render(element), render(element, { plainText: true })]);
  return { subject: template.subject(data), html, text };
}

export type { MailTemplate, TemplateContext } from "./template.ts";
export { defineTemplate } from "./template.ts";
