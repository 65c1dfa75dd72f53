import type { ContactMessage, ContactMessagesResponse, ContactRequest } from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { ContactRepository } from "./contact.repository.ts";

const HOUR_MS = 3_600_000;

type Row = Awaited<ReturnType<ContactRepository["list"]>>["rows"][number];

const toMessage = (r: Row): ContactMessage => ({
  id: r.id,
  name: r.name,
  email: r.email,
  subject: r.subject,
  message: r.message,
  created_at: new Date(r.created_at).toISOString(),
  handled_at: r.handled_at ? new Date(r.handled_at).toISOString() : null,
});

/** The /contact form's messages: stored for the admin Inbox, at most N per client address an hour. */
export function createContactService(deps: {
  repo: ContactRepository;
  clock: Clock;
  maxPerHour: number;
}) {
  const { repo, clock } = deps;
  return {
    async submit(input: ContactRequest, ip: string): Promise<{ id: string }> {
      const now = clock.now();
      const saved = await repo.insertWithin(
        { ...input, ip, created_at: now },
        { max: deps.maxPerHour, since: new Date(now.getTime() - HOUR_MS) },
      );
      if ("id" in saved) return { id: saved.id };
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
      return { messages: rows.map(toMessage), total, unhandled };
    },

    async markHandled(id: string, adminId: string): Promise<ContactMessage> {
      const row = await repo.markHandled(id, adminId, clock.now());
      if (!row) throw new AppError("not_found", "Message not found");
      return toMessage(row);
    },
  };
}

export type ContactService = ReturnType<typeof createContactService>;
