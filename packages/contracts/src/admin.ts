import { z } from "zod";
import { ADMIN_MAX_PAGE_SIZE, ADMIN_PAGE_SIZE, CONTACT_LIMITS } from "./admin-messages.ts";
import { EMAIL_PATTERN, user } from "./auth.ts";

export {
  ADMIN_MAX_PAGE_SIZE,
  ADMIN_PAGE_SIZE,
  adminDeleteConfirmation,
  adminMessages,
  CONTACT_LIMITS,
  CONTACT_SUCCESS,
} from "./admin-messages.ts";

export const adminUsersQuery = z.object({
  search: z
    .string()
    .trim()
    .max(200, "Search must be at most 200 characters")
    .optional()
    .transform((v) => v || undefined),
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(ADMIN_MAX_PAGE_SIZE, `limit must be at most ${ADMIN_MAX_PAGE_SIZE}`)
    .default(ADMIN_PAGE_SIZE),
  offset: z.coerce
    .number({ error: "offset must be a number" })
    .int("offset must be a whole number")
    .min(0, "offset must be at least 0")
    .default(0),
});
export type AdminUsersQuery = z.input<typeof adminUsersQuery>;

/** SPEC §3: the admin list also meets legacy tiers (FREE, BASIC, PRO, PREMIUM) and others. */
export const adminUser = user.extend({ subscription_tier: z.string() });
export type AdminUser = z.infer<typeof adminUser>;

export const adminUsersResponse = z.object({
  users: z.array(adminUser),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type AdminUsersResponse = z.infer<typeof adminUsersResponse>;

/** DELETE /api/auth/me: the user deletes their own account, confirmed with their password. */
export const deleteAccountRequest = z.object({
  password: z.string({ error: "Password is required" }).min(1, "Password is required"),
});
export type DeleteAccountRequest = z.infer<typeof deleteAccountRequest>;

/** What a deletion did (admin and self-service). */
export const deletionResponse = z.object({
  message: z.string(),
  google_revoked: z.boolean(),
  /** Facebook Login grants de-authorised at Facebook (one per person who granted). */
  facebook_revoked: z.number().int(),
});
export type DeletionResponse = z.infer<typeof deletionResponse>;

const required = (label: string, max: number) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} must be at most ${max} characters`);

export const contactRequest = z.object({
  name: required("Name", CONTACT_LIMITS.name),
  email: required("Email", CONTACT_LIMITS.email).regex(EMAIL_PATTERN, "Invalid email address"),
  subject: required("Subject", CONTACT_LIMITS.subject),
  message: required("Message", CONTACT_LIMITS.message),
});
export type ContactRequest = z.infer<typeof contactRequest>;

export const contactMessage = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  subject: z.string(),
  message: z.string(),
  created_at: z.string(),
  handled_at: z.string().nullable(),
  /** Replies sent by mail from the Inbox (issue 29), oldest first. */
  replies: z.array(
    z.object({
      id: z.string(),
      body: z.string(),
      created_at: z.string(),
      /** The reply's mail: queued, sending, sent or failed. */
      mail_status: z.string(),
    }),
  ),
});
export type ContactMessage = z.infer<typeof contactMessage>;

export const contactReplyRequest = z.object({
  body: z
    .string({ error: "Reply is required" })
    .trim()
    .min(1, "Reply is required")
    .max(10_000, "Reply must be at most 10000 characters"),
});
export type ContactReplyRequest = z.infer<typeof contactReplyRequest>;

export const contactMessagesQuery = z.object({
  limit: adminUsersQuery.shape.limit,
  offset: adminUsersQuery.shape.offset,
});

export const contactMessagesResponse = z.object({
  messages: z.array(contactMessage),
  total: z.number().int(),
  unhandled: z.number().int(),
});
export type ContactMessagesResponse = z.infer<typeof contactMessagesResponse>;
