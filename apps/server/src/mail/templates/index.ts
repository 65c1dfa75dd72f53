import { createElement } from "react";
import type { MailCategoryInfo } from "../categories.ts";
import {
  emailChangedTemplate,
  passwordChangedTemplate,
  passwordResetTemplate,
  registerTakenTemplate,
  verifyEmailTemplate,
} from "./account.ts";
import { Layout } from "./layout.ts";
import {
  contactAckTemplate,
  contactReplyTemplate,
  incidentTemplate,
  statusConfirmTemplate,
} from "./public.ts";
import type { MailTemplate, NamedTemplate } from "./template.ts";

/**
 * The mail area's own templates by name (the name is stored in mail_outbox.template: never
 * rename one). To add one: write it with `defineTemplate` in a file of this folder and list it
 * here. Another area's templates (the alerts) are defined in that area as `NamedTemplate`s and
 * registered at wiring (`createMailService({ templates })`); `createMailCatalogue` joins both.
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
} as const;

export type TemplateName = keyof typeof MAIL_TEMPLATES;
export type TemplateData<N extends TemplateName> =
  (typeof MAIL_TEMPLATES)[N] extends MailTemplate<infer D> ? D : never;

/** A template as a sender names it: one of the mail area's by name, or a registered one. */
// biome-ignore lint/suspicious/noExplicitAny: a registered template's data is checked by its sender's type
export type TemplateRef = TemplateName | NamedTemplate<any>;
export type DataOf<T extends TemplateRef> = T extends TemplateName
  ? TemplateData<T>
  : T extends NamedTemplate<infer D>
    ? D
    : never;

/** Every template and category the process knows: the mail area's and the registered ones. */
export interface MailCatalogue {
  /** The template stored under `name`, or undefined (a row of a template since removed). */
  template(name: string): MailTemplate<unknown> | undefined;
  /** A template a sender passes: its stored name and definition (a registered one must be). */
  resolve(ref: TemplateRef): { name: string; template: MailTemplate<unknown> };
  category(key: string): MailCategoryInfo | undefined;
  categories(): MailCategoryInfo[];
}

export function createMailCatalogue(
  registered: readonly NamedTemplate<unknown>[] = [],
): MailCatalogue {
  const templates = new Map<string, MailTemplate<unknown>>(
    Object.entries(MAIL_TEMPLATES) as [string, MailTemplate<unknown>][],
  );
  const categories = new Map<string, MailCategoryInfo>();
  const addCategory = (c: MailCategoryInfo) => {
    const known = categories.get(c.key);
    if (known && known !== c) throw new Error(`Mail category ${c.key} is declared twice`);
    categories.set(c.key, c);
  };
  for (const t of templates.values()) addCategory(t.category);
  for (const t of registered) {
    if (templates.has(t.name)) throw new Error(`Mail template ${t.name} is declared twice`);
    templates.set(t.name, t);
    addCategory(t.category);
  }
  return {
    template: (name) => templates.get(name),
    resolve(ref) {
      const name = typeof ref === "string" ? ref : ref.name;
      const template = templates.get(name);
      if (!template || (typeof ref !== "string" && template !== ref))
        throw new Error(`Mail template ${name} is not registered with the mail area`);
      return { name, template };
    },
    category: (key) => categories.get(key),
    categories: () => [...categories.values()],
  };
}

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

/** A template with its data as the HTML and text parts, in the layout with its footer. */
export async function renderMail(
  template: MailTemplate<unknown>,
  data: unknown,
  options: { appUrl: string; unsubscribeUrl?: string | undefined },
): Promise<RenderedMail> {
  const element = createElement(
    Layout,
    {
      preview: template.preview(data),
      why: template.category.why,
      unsubscribeUrl: options.unsubscribeUrl,
      appUrl: options.appUrl,
    },
    template.body(data, { appUrl: options.appUrl }),
  );
  // Loaded with the first mail: a worker that sends none never holds the renderer (React's
  // server renderer and the HTML-to-text converter, several MiB of a process's memory).
  const { render } = await import("@react-email/render");
  const [html, text] = await Promise.all([render(element), render(element, { plainText: true })]);
  return { subject: template.subject(data), html, text };
}

export type { MailTemplate, NamedTemplate, TemplateContext } from "./template.ts";
export { defineTemplate } from "./template.ts";
