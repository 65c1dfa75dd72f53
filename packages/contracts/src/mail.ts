import { z } from "zod";

/** Mail (issue 29): unsubscribe links and the admin's outbox. */

export const unsubscribeQuery = z.object({ token: z.string().min(1).max(600) });

export const unsubscribeInfo = z.object({
  category: z.string(),
  label: z.string(),
  subscribed: z.boolean(),
});
export type UnsubscribeInfo = z.infer<typeof unsubscribeInfo>;

export const unsubscribeResult = z.object({
  category: z.string(),
  label: z.string(),
  message: z.string(),
});
export type UnsubscribeResult = z.infer<typeof unsubscribeResult>;

export const mailStatus = z.enum(["queued", "sending", "sent", "failed"]);
export type MailStatus = z.infer<typeof mailStatus>;

export const adminOutboxQuery = z.object({
  status: mailStatus.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const outboxMessage = z.object({
  id: z.string(),
  category: z.string(),
  template: z.string(),
  to: z.string(),
  subject: z.string(),
  status: mailStatus,
  attempts: z.number().int(),
  /** Why the last attempt failed (a failed message: why it was given up). */
  error: z.string().nullable(),
  smtp_response: z.string().nullable(),
  created_at: z.string(),
  sent_at: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
});
export type OutboxMessage = z.infer<typeof outboxMessage>;

export const adminOutboxResponse = z.object({
  messages: z.array(outboxMessage),
  counts: z.object({
    queued: z.number().int(),
    sending: z.number().int(),
    sent: z.number().int(),
    failed: z.number().int(),
  }),
});
export type AdminOutboxResponse = z.infer<typeof adminOutboxResponse>;

/** A plain confirmation (forgot password, resend verification, status subscribe…). */
export const messageResponse = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof messageResponse>;
