import type { ContactMessage, ContactMessagesResponse, ContactRequest } from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { ServiceLog } from "../lib/log.ts";
import { asError } from "../lib/log.ts";
import type { MailService } from "../mail/index.ts";
import type { ContactRepository } from "./contact.repository.ts";

const HOUR_MS = 3_600_000;

type Row = Awaited<ReturnType<ContactRepository["list"]>>["rows"][number];
type Reply = ContactMessage["replies"][number];

const toMessage = (r: Row, replies: Reply[] = []): ContactMessage => ({
  id: r.id,
  name: r.name,
  email: r.email,
  subject: r.subject,
  message: r.message,
  created_at: new Date(r.created_at).toISOString(),
  handled_at: r.handled_at ? new Date(r.handled_at).toISOString() : null,
  replies,
});

/** The /contact form's messages: stored for the admin Inbox, at most N per client address an hour. */
export function createContactService(deps: {
  repo: ContactRepository;
  clock: Clock;
  maxPerHour: number;
  mail?: Pick<MailService, "sendToAddress" | "byKey">;
  log?: ServiceLog;
}) {
  const { repo, clock } = deps;

  /** The replies of these messages with their mail's status. */
  async function repliesOf(ids: string[]): Promise<Map<string, Reply[]>> {
    const rows = await repo.replies(ids);
    const out = new Map<string, Reply[]>();
    for (const r of rows) {
      const mail = await deps.mail?.byKey(`contact-reply:${r.id}`);
      const list = out.get(r.message_id) ?? [];
      list.push({
        id: r.id,
        body: r.body,
        created_at: new Date(r.created_at).toISOString(),
        mail_status: mail?.status ?? "queued",
      });
      out.set(r.message_id, list);
    }
    return out;
  }

  return {
    async submit(input: ContactRequest, ip: string): Promise<{ id: string }> {
      const now = clock.now();
      const saved = await repo.insertWithin(
        { ...input, ip, created_at: now },
        { max: deps.maxPerHour, since: new Date(now.getTime() - HOUR_MS) },
      );
      if ("id" in saved) {
        // The sender hears back at once that the message arrived: fixed text (the address is
        // whatever the form was given), at most once a day per address (the key), and within
        // the global hourly cap. Over it the message is still stored; only the mail waits.
        const day = now.toISOString().slice(0, 10);
        await deps.mail
          ?.sendToAddress(input.email, {
            key: `contact-ack:${input.email.trim().toLowerCase()}:${day}`,
            template: "contact-ack",
            data: {},
            cap: "contact",
          })
          .catch((err) => deps.log?.error({ err: asError(err) }, "contact acknowledgement failed"));
        return { id: saved.id };
      }
      const wait = saved.limitedSince.getTime() + HOUR_MS - now.getTime();
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      throw new AppError(
        "too_many",
        `Too many messages from your network. Please try again in ${Math.ceil(seconds / 60)} minute(s).`,
        { retryAfterSeconds: seconds },
      );
    },

    async list(limit: number, offset: number): Promise<ContactMessagesResponse> {
      const { rows, total, unhandled } = await repo.list(limit, offset);
      const replies = await repliesOf(rows.map((r) => r.id));
      return { messages: rows.map((r) => toMessage(r, replies.get(r.id))), total, unhandled };
    },

    async markHandled(id: string, adminId: string): Promise<ContactMessage> {
      const row = await repo.markHandled(id, adminId, clock.now());
      if (!row) throw new AppError("not_found", "Message not found");
      return toMessage(row, (await repliesOf([row.id])).get(row.id));
    },

    /** An admin's reply from the Inbox: kept with the message, sent by mail, marks it handled. */
    async reply(id: string, adminId: string, body: string): Promise<ContactMessage> {
      const message = await repo.find(id);
      if (!message) throw new AppError("not_found", "Message not found");
      if (!deps.mail) throw new AppError("unavailable", "Mail is not available");
      const now = clock.now();
      const reply = await repo.insertReply({
        message_id: id,
        body,
        admin_id: adminId,
        created_at: now,
      });
      await deps.mail.sendToAddress(message.email, {
        key: `contact-reply:${reply.id}`,
        template: "contact-reply",
        data: {
          name: message.name,
          subject: message.subject,
          reply: body,
          original: message.message,
        },
      });
      const row = (await repo.markHandled(id, adminId, now)) ?? message;
      return toMessage(row, (await repliesOf([id])).get(id));
    },
  };
}

export type ContactService = ReturnType<typeof createContactService>;
