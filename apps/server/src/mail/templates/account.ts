import { createElement as h } from "react";
import { MAIL_CATEGORIES } from "../categories.ts";
import { Button, Heading, LinkLine, P } from "./layout.ts";
import { defineTemplate } from "./template.ts";

/** Mails of the auth area: address verification, password reset, e-mail and password changes. */

export const verifyEmailTemplate = defineTemplate<{
  name: string | null;
  url: string;
  change: boolean;
}>({
  category: MAIL_CATEGORIES.account,
  subject: (d) => (d.change ? "Confirm your new e-mail address" : "Verify your e-mail address"),
  preview: () => "One click to confirm this address for your Keepsake account.",
  body: (d) => [
    h(
      Heading,
      { key: "h" },
      d.change ? "Confirm your new e-mail address" : "Verify your e-mail address",
    ),
    h(P, { key: "p1" }, `Hi ${d.name || "there"},`),
    h(
      P,
      { key: "p2" },
      d.change
        ? "You asked to use this address for your Keepsake account. Confirm it and we'll switch your sign-in and alerts over to it."
        : "Thanks for signing up for Keepsake. Confirm your address so we can tell you when a backup needs you — and so you can reset your password if you ever forget it.",
    ),
    h(
      Button,
      { key: "b", href: d.url },
      d.change ? "Confirm new address" : "Verify e-mail address",
    ),
    h(LinkLine, { key: "l", href: d.url }),
    h(
      P,
      { key: "p3" },
      "The link works for 24 hours. If you didn't ask for this, you can ignore this e-mail.",
    ),
  ],
});

export const passwordResetTemplate = defineTemplate<{ name: string | null; url: string }>({
  category: MAIL_CATEGORIES.account,
  subject: () => "Reset your Keepsake password",
  preview: () => "Choose a new password. The link works for one hour.",
  body: (d) => [
    h(Heading, { key: "h" }, "Reset your password"),
    h(P, { key: "p1" }, `Hi ${d.name || "there"},`),
    h(
      P,
      { key: "p2" },
      "Someone asked to reset the password of your Keepsake account. If it was you, choose a new one:",
    ),
    h(Button, { key: "b", href: d.url }, "Choose a new password"),
    h(LinkLine, { key: "l", href: d.url }),
    h(
      P,
      { key: "p3" },
      "The link works once, for one hour. Setting a new password signs you out everywhere. If you didn't ask for this, ignore this e-mail — your password stays as it is.",
    ),
  ],
});

export const passwordChangedTemplate = defineTemplate<{ name: string | null; url: string }>({
  category: MAIL_CATEGORIES.account,
  subject: () => "Your Keepsake password was changed",
  preview: () => "Your password was changed and every other session was signed out.",
  body: (d) => [
    h(Heading, { key: "h" }, "Your password was changed"),
    h(P, { key: "p1" }, `Hi ${d.name || "there"},`),
    h(
      P,
      { key: "p2" },
      "The password of your Keepsake account was just changed, and every other session was signed out.",
    ),
    h(P, { key: "p3" }, "If this wasn't you, reset your password now and contact us:"),
    h(Button, { key: "b", href: d.url }, "Reset password"),
  ],
});

export const emailChangedTemplate = defineTemplate<{
  name: string | null;
  newEmail: string;
  supportEmail: string;
}>({
  category: MAIL_CATEGORIES.account,
  subject: () => "Your Keepsake e-mail address was changed",
  preview: (d) => `Your account now uses ${d.newEmail}.`,
  body: (d) => [
    h(Heading, { key: "h" }, "Your e-mail address was changed"),
    h(P, { key: "p1" }, `Hi ${d.name || "there"},`),
    h(
      P,
      { key: "p2" },
      `Your Keepsake account now signs in with ${d.newEmail}, and we'll send its mail there. This address will no longer receive anything from us.`,
    ),
    h(P, { key: "p3" }, `If you didn't make this change, write to ${d.supportEmail} at once.`),
  ],
});

/**
 * To the owner of an address someone tried to register again (issue 35): registration answers
 * the same whether or not the address is taken, and the owner hears of it here. Nothing the
 * request submitted (its name) is repeated.
 */
export const registerTakenTemplate = defineTemplate<{ loginUrl: string; resetUrl: string }>({
  category: MAIL_CATEGORIES.account,
  subject: () => "Someone tried to sign up with your address",
  preview: () => "Your Keepsake account is unchanged. Sign in, or reset your password.",
  body: (d) => [
    h(Heading, { key: "h" }, "You already have a Keepsake account"),
    h(P, { key: "p1" }, "Hi,"),
    h(
      P,
      { key: "p2" },
      "Someone — probably you — just tried to create a Keepsake account with this address. It already has one, so nothing was created and nothing changed.",
    ),
    h(P, { key: "p3" }, "If it was you, sign in:"),
    h(Button, { key: "b", href: d.loginUrl }, "Sign in"),
    h(P, { key: "p4" }, "Forgot your password? Choose a new one:"),
    h(LinkLine, { key: "l", href: d.resetUrl }),
    h(P, { key: "p5" }, "If it wasn't you, ignore this e-mail: your account is safe."),
  ],
});
