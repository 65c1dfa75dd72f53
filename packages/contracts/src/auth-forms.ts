// The schemas of the web app's forms (sign-in, registration, password reset, profile, e-mail and
// password change), in zod/mini: the screens that validate with them load its small core, not
// zod classic. The server takes the same schemas as its request bodies (auth.ts re-exports
// them); the checks, their order and their messages are SPEC §5's.
import { z } from "zod/mini";
import { EMAIL_PATTERN, messages } from "./auth-messages.ts";

const email = z
  .string({ error: messages.emailRequired })
  .check(
    z.trim(),
    z.minLength(1, messages.emailRequired),
    z.regex(EMAIL_PATTERN, messages.emailInvalid),
  );

export const loginRequest = z.object({
  email,
  password: z
    .string({ error: messages.passwordRequired })
    .check(z.minLength(1, messages.passwordRequired), z.minLength(6, messages.passwordShortLogin)),
});
export type LoginRequest = z.infer<typeof loginRequest>;

const registerPassword = z
  .string({ error: messages.passwordRequired })
  .check(
    z.minLength(1, messages.passwordRequired),
    z.minLength(8, messages.passwordShortRegister),
    z.regex(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)/, messages.passwordWeak),
  );

const fullName = z
  .string({ error: messages.fullNameRequired })
  .check(
    z.trim(),
    z.minLength(1, messages.fullNameRequired),
    z.minLength(2, messages.fullNameShort),
    z.maxLength(200, "Full name must be at most 200 characters"),
  );

/** The new password and its confirmation, which is never sent, must match. */
const passwordsMatch = z.refine<{ password: string; confirm_password: string }>(
  (v) => v.password === v.confirm_password,
  { message: messages.passwordsDiffer, path: ["confirm_password"] },
);

const confirmPassword = z
  .string({ error: messages.confirmRequired })
  .check(z.minLength(1, messages.confirmRequired));

export const registerRequest = z.object({
  full_name: fullName,
  email,
  password: registerPassword,
});
export type RegisterRequest = z.infer<typeof registerRequest>;

/** The register form: the API payload plus the confirmation field, which is never sent. */
export const registerForm = z
  .extend(registerRequest, { confirm_password: confirmPassword })
  .check(passwordsMatch);
export type RegisterForm = z.infer<typeof registerForm>;

export const profileUpdateRequest = z.object({ full_name: fullName });
export type ProfileUpdateRequest = z.infer<typeof profileUpdateRequest>;

export const forgotPasswordRequest = z.object({ email });
export type ForgotPasswordRequest = z.infer<typeof forgotPasswordRequest>;

export const resetPasswordRequest = z.object({
  token: z.string().check(z.minLength(1), z.maxLength(200)),
  password: registerPassword,
});
export type ResetPasswordRequest = z.infer<typeof resetPasswordRequest>;

/** The /reset-password form: the new password twice (the token comes from the link). */
export const resetPasswordForm = z
  .object({ password: registerPassword, confirm_password: confirmPassword })
  .check(passwordsMatch);
export type ResetPasswordForm = z.infer<typeof resetPasswordForm>;

export const changeEmailRequest = z.object({
  email,
  password: z
    .string({ error: messages.passwordRequired })
    .check(z.minLength(1, messages.passwordRequired)),
});
export type ChangeEmailRequest = z.infer<typeof changeEmailRequest>;

export const changePasswordRequest = z.object({
  current_password: z
    .string({ error: "Current password is required" })
    .check(z.minLength(1, "Current password is required")),
  new_password: registerPassword,
});
export type ChangePasswordRequest = z.infer<typeof changePasswordRequest>;
