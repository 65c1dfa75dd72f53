import { z } from "zod";
import { EMAIL_PATTERN, messages } from "./auth-messages.ts";

export {
  accountMessages,
  EMAIL_PATTERN,
  messages,
} from "./auth-messages.ts";

const email = z
  .string({ error: messages.emailRequired })
  .trim()
  .min(1, messages.emailRequired)
  .regex(EMAIL_PATTERN, messages.emailInvalid);

export const loginRequest = z.object({
  email,
  password: z
    .string({ error: messages.passwordRequired })
    .min(1, messages.passwordRequired)
    .min(6, messages.passwordShortLogin),
});
export type LoginRequest = z.infer<typeof loginRequest>;

const registerPassword = z
  .string({ error: messages.passwordRequired })
  .min(1, messages.passwordRequired)
  .min(8, messages.passwordShortRegister)
  .regex(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)/, messages.passwordWeak);

const fullName = z
  .string({ error: messages.fullNameRequired })
  .trim()
  .min(1, messages.fullNameRequired)
  .min(2, messages.fullNameShort)
  .max(200, "Full name must be at most 200 characters");

export const registerRequest = z.object({
  full_name: fullName,
  email,
  password: registerPassword,
});
export type RegisterRequest = z.infer<typeof registerRequest>;

/** The register form: the API payload plus the confirmation field, which is never sent. */
export const registerForm = registerRequest
  .extend({
    confirm_password: z
      .string({ error: messages.confirmRequired })
      .min(1, messages.confirmRequired),
  })
  .refine((v) => v.password === v.confirm_password, {
    message: messages.passwordsDiffer,
    path: ["confirm_password"],
  });
export type RegisterForm = z.infer<typeof registerForm>;

export const profileUpdateRequest = z.object({ full_name: fullName });
export type ProfileUpdateRequest = z.infer<typeof profileUpdateRequest>;

export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("bearer"),
});
export type TokenResponse = z.infer<typeof tokenResponse>;

export const subscriptionTier = z.enum(["free", "premium", "pro", "agency"]);
export type SubscriptionTier = z.infer<typeof subscriptionTier>;

/** An Instagram account as embedded in the profile (SPEC §3 `social_accounts`). */
export const socialAccountSummary = z.object({
  id: z.string(),
  username: z.string(),
  display_name: z.string().nullable(),
  profile_picture_url: z.string().nullable(),
});

/** SPEC §3 User. */
export const user = z.object({
  id: z.string(),
  email: z.string(),
  full_name: z.string().nullable(),
  is_admin: z.boolean(),
  is_active: z.boolean(),
  subscription_tier: subscriptionTier,
  token_expires_at: z.string().nullable(),
  created_at: z.string(),
  social_accounts: z.array(socialAccountSummary),
  /** Whether the user confirmed their address (issue 29); a banner asks until they do. */
  email_verified: z.boolean(),
  /** An e-mail change waiting for its confirmation link, if any. */
  pending_email: z.string().nullable(),
});
export type User = z.infer<typeof user>;

export const errorResponse = z.object({ detail: z.string() });
export type ErrorResponse = z.infer<typeof errorResponse>;

/** Account e-mails (issue 29). */

export const forgotPasswordRequest = z.object({ email });
export type ForgotPasswordRequest = z.infer<typeof forgotPasswordRequest>;

export const resetPasswordRequest = z.object({
  token: z.string().min(1).max(200),
  password: registerPassword,
});
export type ResetPasswordRequest = z.infer<typeof resetPasswordRequest>;

export const verifyEmailRequest = z.object({ token: z.string().min(1).max(200) });
export type VerifyEmailRequest = z.infer<typeof verifyEmailRequest>;

export const changeEmailRequest = z.object({
  email,
  password: z.string({ error: messages.passwordRequired }).min(1, messages.passwordRequired),
});
export type ChangeEmailRequest = z.infer<typeof changeEmailRequest>;

export const changePasswordRequest = z.object({
  current_password: z
    .string({ error: "Current password is required" })
    .min(1, "Current password is required"),
  new_password: registerPassword,
});
export type ChangePasswordRequest = z.infer<typeof changePasswordRequest>;
