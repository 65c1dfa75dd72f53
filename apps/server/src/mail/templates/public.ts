import { createElement as h } from "react";
import { Button, Heading, LinkLine, P, Quote } from "./layout.ts";
import { defineTemplate } from "./template.ts";

/** Mails of the public pages: status subscriptions and incidents, the contact form. */

export const statusConfirmTemplate = defineTemplate<{ url: string }>({
  category: "status_confirm",
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
      "If it wasn't you, ignore this e-mail: nothing will be sent to this address.",
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
  category: "status",
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

export const contactAckTemplate = defineTemplate<{
  name: string;
  subject: string;
  message: string;
}>({
  category: "contact",
  subject: (d) => `We got your message: ${d.subject}`,
  preview: () => "Thanks for writing. We usually answer within one business day.",
  body: (d) => [
    h(Heading, { key: "h" }, "Thanks for getting in touch"),
    h(P, { key: "p1" }, `Hi ${d.name},`),
    h(
      P,
      { key: "p2" },
      "We got your message and will answer you at this address, usually within one business day. Here is what you sent:",
    ),
    h(Quote, { key: "q" }, d.message),
  ],
});

export const contactReplyTemplate = defineTemplate<{
  name: string;
  subject: string;
  reply: string;
  original: string;
}>({
  category: "contact",
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
