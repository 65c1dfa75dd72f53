import { createHash } from "node:crypto";
import { decryptSecret, encryptSecret } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import { CAPPED } from "./caps.ts";
import type { MailCategory, MailCategoryInfo } from "./categories.ts";
import { deliverMailJob } from "./mail.jobs.ts";
import type { MailRepository } from "./mail.repository.ts";
import type { MailQueued, MailRequest, MailServiceDeps } from "./mail.types.ts";
import { addressOf, SmtpError } from "./smtp.ts";
import type { MailStatus } from "./tables.ts";
import { createMailCatalogue, renderMail, type TemplateRef } from "./templates/index.ts";
import { unsubscribeTokens } from "./unsubscribe-token.ts";

export const INTERRUPTED =
  "The worker stopped while the SMTP server was taking this message; it may have been delivered, so it was not sent again.";

const HOUR_MS = 3_600_000;
const userRecipient = (userId: string) => `user:${userId}`;

/** A row's template data: sealed (a string) since migration 1092, a plain object before. */
function openData(key: Buffer, data: unknown): unknown {
  return typeof data === "string" ? JSON.parse(decryptSecret(key, data)) : data;
}
const addressRecipient = (email: string) => `address:${email.trim().toLowerCase()}`;

/**
 * The mail area: an outbox (a row per event, then a job per row) that sends each message
 * exactly once, templates, categories with unsubscribe, and the admin's view. See
 * apps/server/README.md (Mail) for how a crash is handled.
 */
export function createMailService(deps: MailServiceDeps) {
  const { repo, clock, settings } = deps;
  const tokens = unsubscribeTokens(deps.secret);
  const domain = addressOf(deps.from).split("@")[1] ?? "keepsake.local";
  const leaseMs = () => 2 * settings.smtpTimeoutMs + 5_000;
  const catalogue = createMailCatalogue(deps.templates);
  /** A category by its stored name; an unknown one is refused. */
  const categoryInfo = (key: MailCategory): MailCategoryInfo => {
    const info = catalogue.category(key);
    if (!info) throw new AppError("not_found", `Unknown mail category ${key}`);
    return info;
  };
  const isMailCategory = (key: string) => catalogue.category(key) !== undefined;

  function unsubscribeLinks(recipient: string, category: MailCategory) {
    const token = tokens.sign(recipient, category);
    return {
      /** The page a person opens from the footer (asks before it unsubscribes). */
      page: `${deps.appUrl}/unsubscribe?token=${encodeURIComponent(token)}`,
      /** RFC 8058 one-click: mail clients POST `List-Unsubscribe=One-Click` here. */
      oneClick: `${deps.appUrl}/api/mail/unsubscribe?token=${encodeURIComponent(token)}`,
    };
  }

  async function enabled(recipient: string, category: MailCategory): Promise<boolean> {
    const info = categoryInfo(category);
    if (info.essential) return true;
    return (await repo.preference(recipient, category)) ?? info.defaultOn;
  }

  async function record<T extends TemplateRef>(
    req: MailRequest<T>,
    to: { address: string; recipient: string; userId: string | null },
  ): Promise<MailQueued> {
    const { name, template } = catalogue.resolve(req.template);
    const subject = template.subject(req.data);
    const hash = createHash("sha256").update(req.key).digest("hex").slice(0, 40);
    const now = clock.now();
    const message = {
      idempotency_key: req.key,
      category: template.category.key,
      template: name,
      recipient: to.recipient,
      user_id: to.userId,
      to_address: to.address,
      subject,
      // Sealed at rest: a queued message's links (reset, verification) are live.
      data: encryptSecret(deps.sealKey, JSON.stringify(req.data)),
      message_id: `<${hash}@${domain}>`,
      now,
    };
    let row: { id: string; created: boolean };
    if (req.cap) {
      const capped = await repo.insertCapped(message, {
        group: req.cap,
        max: settings.capsPerHour[req.cap],
        since: new Date(now.getTime() - HOUR_MS),
      });
      if ("cappedSince" in capped) {
        const wait = capped.cappedSince.getTime() + HOUR_MS - now.getTime();
        deps.log?.warn({ cap: req.cap, template: name }, "hourly mail cap reached");
        return {
          id: null,
          skipped: CAPPED,
          retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
        };
      }
      row = capped;
    } else {
      row = await repo.insertMessage(message);
    }
    // A job even when the row existed: harmless (the row decides), and it revives a message
    // whose first job was lost.
    if (row.created) await deps.queue.send(deliverMailJob, { id: row.id });
    return row;
  }

  const service = {
    /** Whether `userId` may receive `category`: essential ones always; others need a verified address not unsubscribed. */
    async mayReceive(userId: string, category: MailCategory): Promise<boolean> {
      const user = await deps.users.address(userId);
      if (!user) return false;
      if (categoryInfo(category).essential) return true;
      return user.verified && (await enabled(userRecipient(userId), category));
    },

    /**
     * Sends a template to a user at their current address, once per `key`. A non-essential
     * category goes only to a verified address the user has not unsubscribed from: otherwise
     * nothing is recorded and the answer says why (`skipped`).
     */
    async sendToUser<T extends TemplateRef>(
      userId: string,
      req: MailRequest<T>,
      options: { address?: string } = {},
    ): Promise<MailQueued> {
      const category = catalogue.resolve(req.template).template.category.key;
      const user = await deps.users.address(userId);
      if (!user) return { id: null, skipped: "no such user" };
      if (!categoryInfo(category).essential) {
        if (!user.verified) return { id: null, skipped: "address not verified" };
        if (!(await enabled(userRecipient(userId), category)))
          return { id: null, skipped: "unsubscribed" };
      }
      const address = (options.address ?? user.email).trim().toLowerCase();
      return record(req, { address, recipient: userRecipient(userId), userId });
    },

    /**
     * Sends a template to an address that is not (or not only) a user's — a status subscriber,
     * someone who wrote through the contact form — once per `key`; a non-essential category
     * only while the address has not unsubscribed from it.
     */
    async sendToAddress<T extends TemplateRef>(
      address: string,
      req: MailRequest<T>,
    ): Promise<MailQueued> {
      const category = catalogue.resolve(req.template).template.category.key;
      const recipient = addressRecipient(address);
      if (!(await enabled(recipient, category))) return { id: null, skipped: "unsubscribed" };
      return record(req, { address: address.trim().toLowerCase(), recipient, userId: null });
    },

    /** The outbox row of an event, for callers and tests. */
    byKey: (key: string) => repo.findByKey(key),

    /**
     * One delivery attempt of an outbox message (the `mail-deliver` job). Exactly once: the
     * attempt claims the row (status 'sending', a lease); it records phase 'data' just before
     * the SMTP DATA command and the outcome right after the server's reply. A retried or
     * duplicate job finds the row sent, failed or held and sends nothing.
     */
    async deliver(id: string): Promise<void> {
      const now = clock.now();
      const row = await repo.claim(id, now, new Date(now.getTime() + leaseMs()));
      if (!row) {
        const current = await repo.get(id);
        if (!current || current.status === "sent" || current.status === "failed") return;
        if (current.status === "sending") {
          const lapsed = current.lease_until && new Date(current.lease_until) < now;
          if (lapsed && current.phase === "data") {
            await repo.failInterrupted(id, now, INTERRUPTED);
            return;
          }
          // Another attempt holds it: pg-boss retries this job later, when it has settled.
          throw new Error(`mail ${id} is being sent by another attempt`);
        }
        return;
      }
      const attempt = row.attempts;
      const settle = (outcome: Parameters<MailRepository["settle"]>[2]) =>
        repo.settle(id, attempt, outcome);
      const template = catalogue.template(row.template);
      if (!template || !isMailCategory(row.category)) {
        await settle({
          status: "failed",
          error: `Unknown template ${row.template}`,
          now: clock.now(),
        });
        return;
      }
      const category = row.category;
      const links = categoryInfo(category).essential
        ? null
        : unsubscribeLinks(row.recipient, category);
      let rendered: Awaited<ReturnType<typeof renderMail>>;
      try {
        rendered = await renderMail(template, openData(deps.sealKey, row.data), {
          appUrl: deps.appUrl,
          unsubscribeUrl: links?.page,
        });
      } catch (err) {
        await settle({
          status: "failed",
          error: `Rendering failed: ${String(err)}`,
          now: clock.now(),
        });
        return;
      }
      const headers: Record<string, string> = { "X-Keepsake-Category": category };
      if (links) {
        headers["List-Unsubscribe"] = `<${links.oneClick}>`;
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click";
      }
      try {
        const { response } = await deps.smtp.send(
          {
            from: deps.from,
            to: row.to_address,
            subject: rendered.subject,
            text: rendered.text,
            html: rendered.html,
            messageId: row.message_id,
            headers,
          },
          async () => {
            const at = clock.now();
            // The DATA exchange is one reply away: its lease is one time limit (and a margin).
            const lease = new Date(at.getTime() + settings.smtpTimeoutMs + 5_000);
            const held = await repo.enterData(id, attempt, at, lease);
            if (!held) throw new SmtpError("lost the claim before sending", true);
          },
        );
        await settle({ status: "sent", response, now: clock.now() });
      } catch (err) {
        const e = err instanceof SmtpError ? err : new SmtpError(String(err), true);
        if (e.message === "lost the claim before sending") return;
        const at = clock.now();
        if (!e.temporary || attempt >= settings.maxAttempts) {
          await settle({
            status: "failed",
            error: e.temporary ? `${e.message} (gave up after ${attempt} attempts)` : e.message,
            now: at,
          });
          return;
        }
        const delayMs = Math.min(settings.retryBaseMs * 2 ** (attempt - 1), 3_600_000);
        await settle({
          status: "queued",
          error: e.message,
          nextAttemptAt: new Date(at.getTime() + delayMs),
          now: at,
        });
        await deps.queue.send(deliverMailJob, { id }, { startAfter: Math.ceil(delayMs / 1000) });
      }
    },

    /**
     * Queues again messages that lost their job (due for more than two minutes) and settles
     * attempts whose worker died: before DATA the message is sent again, during DATA it is not
     * (INTERRUPTED). Answers how many it touched.
     */
    async sweep(): Promise<number> {
      const now = clock.now();
      const rows = await repo.stranded(new Date(now.getTime() - 120_000), now, 200);
      for (const r of rows) {
        if (r.status === "sending" && r.phase === "data") {
          await repo.failInterrupted(r.id, now, INTERRUPTED);
        } else {
          await deps.queue.send(deliverMailJob, { id: r.id });
        }
      }
      return rows.length;
    },

    /** The unsubscribe page's question: which category, for which address (masked). */
    async describeUnsubscribe(token: string) {
      const opened = tokens.open(token);
      if (!opened || !isMailCategory(opened.category) || categoryInfo(opened.category).essential)
        throw new AppError("not_found", "This unsubscribe link is not valid.");
      return {
        category: opened.category,
        label: categoryInfo(opened.category).label,
        subscribed: await enabled(opened.recipient, opened.category),
      };
    },

    /** Unsubscribes the token's recipient from its category; no sign-in needed. Idempotent. */
    async unsubscribe(token: string) {
      const opened = tokens.open(token);
      if (!opened || !isMailCategory(opened.category) || categoryInfo(opened.category).essential)
        throw new AppError("not_found", "This unsubscribe link is not valid.");
      await repo.setPreference(opened.recipient, opened.category, false, clock.now());
      return {
        category: opened.category,
        label: categoryInfo(opened.category).label,
        message: `You're unsubscribed from ${categoryInfo(opened.category).label.toLowerCase()}.`,
      };
    },

    /** A deleted user's mail choices, kept by their id and by their address, are forgotten. */
    async forgetUser(userId: string, email: string): Promise<void> {
      await repo.deletePreferences([userRecipient(userId), addressRecipient(email)]);
    },

    /** A user's choice per non-essential category (defaults filled in). */
    async userPreferences(userId: string): Promise<Record<string, boolean>> {
      const chosen = await repo.preferences(userRecipient(userId));
      const out: Record<string, boolean> = {};
      for (const info of catalogue.categories()) {
        if (!info.essential) out[info.key] = chosen.get(info.key) ?? info.defaultOn;
      }
      return out;
    },

    async setUserPreference(userId: string, category: MailCategory, on: boolean) {
      if (categoryInfo(category).essential)
        throw new AppError(
          "invalid",
          `${categoryInfo(category).label} e-mails cannot be turned off.`,
        );
      await repo.setPreference(userRecipient(userId), category, on, clock.now());
    },

    /** Whether an address (not a user) is unsubscribed from a category. */
    addressReceives: (address: string, category: MailCategory) =>
      enabled(addressRecipient(address), category),

    /** Turns a category back on for an address (a status subscriber who confirms again). */
    resubscribeAddress: (address: string, category: MailCategory) =>
      repo.setPreference(addressRecipient(address), category, true, clock.now()),

    /** The admin's outbox view. */
    async outbox(options: { status?: MailStatus; limit: number; offset: number }) {
      const [items, counts] = await Promise.all([repo.list(options), repo.counts()]);
      return { items, counts };
    },
  };
  return service;
}

export type MailService = ReturnType<typeof createMailService>;
export { CAPPED, MAIL_CAP_GROUPS, type MailCapGroup } from "./caps.ts";
export type { MailCategory, MailCategoryInfo } from "./categories.ts";
export { defineCategory } from "./categories.ts";
export type * from "./mail.types.ts";
export type { AlertMailData } from "./templates/alerts.ts";
export { alertTemplate } from "./templates/alerts.ts";
export type { NamedTemplate, TemplateData, TemplateName } from "./templates/index.ts";
