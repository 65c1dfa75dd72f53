import { createElement as h } from "react";
import { MAIL_CATEGORIES } from "../categories.ts";
import { Button, Heading, LinkLine, P, Quote } from "./layout.ts";
import { defineTemplate } from "./template.ts";

/** Mails of the public pages: status subscriptions and incidents, the contact form. */

export const statusConfirmTemplate = defineTemplate<{ url: string }>({
  category: MAIL_CATEGORIES.status_confirm,
  subject: () => "Confirm your Keepsake status subscription",
  preview: () => "One click and we'll e-mail you when an incident opens and when it's resolved.",
  body: (d) => [
    h(Heading, { key: "h" }, "Confirm your subscription"),
    h(
      P,
      { key: "p1" },
      "Someone — hopefully you — asked to receive Keepsake status updates at this address. Confirm it and we'll e-mail you when an incident opens and when it's resolved.",
    ),
    h(Button, { key: "b", href: d.url }, "Confirm subscription"),
    h(LinkLine, { key: "l", href: d.url }),
    h(
      P,
      { key: "p2" },
      "The link works for 24 hours. If it wasn't you, ignore this e-mail: nothing will be sent to this address.",
    ),
  ],
});

export const incidentTemplate = defineTemplate<{
  incidentId: string;
  title: string;
  description: string;
  state: "opened" | "resolved";
  duration: string | null;
  statusUrl: string;
}>({
  category: MAIL_CATEGORIES.status,
  subject: (d) => (d.state === "opened" ? `Incident: ${d.title}` : `Resolved: ${d.title}`),
  preview: (d) =>
    d.state === "opened"
      ? "We're looking into it. Your backups resume on their own once it's fixed."
      : `The incident is resolved${d.duration ? ` after ${d.duration}` : ""}.`,
  body: (d) => [
    h(Heading, { key: "h" }, d.state === "opened" ? d.title : `Resolved: ${d.title}`),
    h(Quote, { key: "q" }, d.description),
    h(
      P,
      { key: "p" },
      d.state === "opened"
        ? "We're on it. Backups that can't run now are retried on their own once it's fixed — nothing you need to do."
        : `This incident is resolved${d.duration ? ` (it lasted ${d.duration})` : ""}. Backups that were held up are catching up on their own.`,
    ),
    h(Button, { key: "b", href: d.statusUrl }, "View status page"),
  ],
});

/**
 * The contact form's acknowledgement: fixed text only. It goes to whatever address the form was
 * given, so nothing of what was submitted (name, subject, message) is repeated: it cannot carry
 * anyone's words from our domain. Rows recorded before issue 35 hold old data; it is ignored.
 */
export const contactAckTemplate = defineTemplate<Record<string, never>>({
  category: MAIL_CATEGORIES.contact,
  subject: () => "We got your message",
  preview: () => "Thanks for writing. We usually answer within one business day.",
  body: () => [
    h(Heading, { key: "h" }, "Thanks for getting in touch"),
    h(P, { key: "p1" }, "Hi,"),
    h(
      P,
      { key: "p2" },
      "We got the message sent through the Keepsake contact form with this address, and will answer you here, usually within one business day.",
    ),
    h(
      P,
      { key: "p3" },
      "If you didn't write to us, ignore this e-mail: we will not write to this address unless someone uses the form with it again.",
    ),
  ],
});

export const contactReplyTemplate = defineTemplate<{
  name: string;
  subject: string;
  reply: string;
  original: string;
}>({
  category: MAIL_CATEGORIES.contact,
  subject: (d) => `Re: ${d.subject}`,
  preview: (d) => d.reply.slice(0, 120),
  body: (d) => [
    h(P, { key: "p1" }, `Hi ${d.name},`),
    h("div", { key: "r", style: { whiteSpace: "pre-wrap", margin: "0 0 16px" } }, d.reply),
    h(P, { key: "s" }, "— The Keepsake team"),
    h(P, { key: "o" }, "Your message:"),
    h(Quote, { key: "q" }, d.original),
  ],
});
