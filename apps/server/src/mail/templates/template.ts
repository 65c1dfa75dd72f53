import type { ReactNode } from "react";
import type { MailCategoryInfo } from "../categories.ts";

/** What a template's body may use besides its data. */
export interface TemplateContext {
  /** Keepsake's public origin (APP_URL), for links. */
  appUrl: string;
}

/**
 * One kind of message: its category, subject and body (a React element inside the shared
 * layout). Its data is stored with the outbox row until the message is sent, so it must be
 * plain JSON.
 */
export interface MailTemplate<D> {
  category: MailCategoryInfo;
  subject(data: D): string;
  /** The line mail clients show beside the subject. */
  preview(data: D): string;
  body(data: D, ctx: TemplateContext): ReactNode;
}

/**
 * A template another area defines and registers with the mail area at wiring
 * (`createMailService({ templates })`), sent by passing the template itself. Its name is
 * stored in mail_outbox.template: never rename one.
 */
export interface NamedTemplate<D> extends MailTemplate<D> {
  name: string;
}

/** Declares a template; the identity function exists to infer the data type. */
export function defineTemplate<D>(template: MailTemplate<D>): MailTemplate<D> {
  return template;
}
