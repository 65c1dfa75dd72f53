// No zod here: the web app's screens take these, and a bundle keeps a module that builds a
// schema (see site-defaults.ts). admin.ts re-exports them for the server.

/** GET /api/admin/users: a page of users, newest first, filtered by name or e-mail. */
export const ADMIN_PAGE_SIZE = 25;
export const ADMIN_MAX_PAGE_SIZE = 100;

/** SPEC §2 admin delete confirmation. */
export const adminDeleteConfirmation = (email: string) =>
  `Are you sure you want to delete user ${email}?`;

export const adminMessages = {
  selfAdmin: "You cannot remove your own admin rights",
  selfActive: "You cannot deactivate your own account",
  selfDelete: "You cannot delete your own account from the admin area",
  notFound: "User not found",
  deactivatedLogin:
    "This account has been deactivated. Contact support if you think this is a mistake.",
  wrongPassword: "The password is incorrect",
} as const;

/** Contact form (SPEC §3 "Contact message draft"), bounded on both sides. */
export const CONTACT_LIMITS = { name: 200, email: 254, subject: 200, message: 5000 } as const;

export const CONTACT_SUCCESS = "Message sent successfully! We'll get back to you soon.";
