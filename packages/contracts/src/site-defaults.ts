// No zod here: the web app's shell uses these, and a bundle keeps a module that builds a schema.
// The web types CONTACT_DEFAULTS as site.ts's ContactDetails: a field missing here fails there.

/** The defaults of the configuration (SUPPORT_EMAIL, CAREERS_EMAIL, PRESS_EMAIL, CONTACT_PHONE). */
export const CONTACT_DEFAULTS: {
  support_email: string;
  careers_email: string;
  press_email: string;
  phone: string;
} = {
  support_email: "support@keepsake.app",
  careers_email: "careers@keepsake.app",
  press_email: "press@keepsake.app",
  phone: "+1 (555) 010-2024",
};

/** "+1 (555) 010-2024" → "tel:+15550102024". */
export const phoneHref = (phone: string) => `tel:${phone.replace(/[^\d+]/g, "")}`;
