import { createElement as h } from "react";
import type { MailCategoryInfo } from "../categories.ts";
import { Button, Heading, LinkLine, P, Quote } from "./layout.ts";
import type { NamedTemplate } from "./template.ts";

/**
 * The shape of every alert e-mail and of the weekly digest (the notifications area defines
 * each one in `notifications/alerts/`): a heading, a few paragraphs, an optional list of what
 * happened, and the button to the fix. The text is written by the notifications area, so the
 * in-app entry and the e-mail say the same thing.
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

/** An alert's e-mail: its stored template name and its category. */
export const alertTemplate = (
  name: string,
  category: MailCategoryInfo,
): NamedTemplate<AlertMailData> => ({
  name,
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
