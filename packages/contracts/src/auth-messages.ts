// No zod here: the web app's screens take these, and a bundle keeps a module that builds a
// schema (see site-defaults.ts). auth.ts re-exports them for the server.

/** SPEC §5 validation messages, shared by the server and the forms. */
export const messages = {
  fullNameRequired: "Full name is required",
  fullNameShort: "Full name must be at least 2 characters",
  emailRequired: "Email is required",
  emailInvalid: "Invalid email address",
  passwordRequired: "Password is required",
  passwordShortLogin: "Password must be at least 6 characters",
  passwordShortRegister: "Password must be at least 8 characters",
  passwordWeak:
    "Password must contain at least one uppercase letter, one lowercase letter, and one number",
  confirmRequired: "Please confirm your password",
  passwordsDiffer: "Passwords do not match",
} as const;

/** The "standard e-mail pattern" of SPEC §5. */
export const EMAIL_PATTERN = /^[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}$/i;

export const accountMessages = {
  resetSent:
    "If an account exists for that address, we've sent a link to reset its password. It works for one hour.",
  resetInvalid: "This reset link is invalid or has expired. Ask for a new one.",
  resetDone: "Your password has been reset. Sign in with your new password.",
  verifySent: "We've sent you a new verification link.",
  verifyInvalid: "This verification link is invalid or has expired.",
  verified: "Your e-mail address is verified.",
  emailChanged: "Your e-mail address has been changed.",
  emailTaken: "Email already registered",
  /**
   * After a registration whose sign-in failed: the address already had an account (issue 35:
   * registration answers the same either way, and that account's owner was mailed).
   */
  registerSignInFailed:
    "We couldn't sign you in. If this address already has a Keepsake account, we've sent it an e-mail: sign in, or reset your password.",
  emailSame: "That is already your e-mail address",
  wrongCurrentPassword: "Current password is incorrect",
  passwordChanged: "Password changed. Your other sessions have been signed out.",
} as const;
