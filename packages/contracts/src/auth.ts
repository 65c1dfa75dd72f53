import { z } from "zod";

export {
  type ChangeEmailRequest,
  type ChangePasswordRequest,
  changeEmailRequest,
  changePasswordRequest,
  type ForgotPasswordRequest,
  forgotPasswordRequest,
  type LoginRequest,
  loginRequest,
  type ProfileUpdateRequest,
  profileUpdateRequest,
  type RegisterForm,
  type RegisterRequest,
  type ResetPasswordForm,
  type ResetPasswordRequest,
  registerForm,
  registerRequest,
  resetPasswordForm,
  resetPasswordRequest,
} from "./auth-forms.ts";
export {
  accountMessages,
  EMAIL_PATTERN,
  messages,
} from "./auth-messages.ts";

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

/** Account e-mails (issue 29): the link that confirms an address. */
export const verifyEmailRequest = z.object({ token: z.string().min(1).max(200) });
export type VerifyEmailRequest = z.infer<typeof verifyEmailRequest>;
