import { z } from "zod";

/** GET /api/site: the contact details the pages show (SPEC's {email}, {phone}). */
export const contactDetails = z.object({
  support_email: z.string(),
  careers_email: z.string(),
  press_email: z.string(),
  phone: z.string(),
});
export type ContactDetails = z.infer<typeof contactDetails>;

/** The defaults of the configuration (SUPPORT_EMAIL, CAREERS_EMAIL, PRESS_EMAIL, CONTACT_PHONE). */
export const CONTACT_DEFAULTS: ContactDetails = {
  support_email: "support@keepsake.app",
  careers_email: "careers@keepsake.app",
  press_email: "press@keepsake.app",
  phone: "+1 (555) 010-2024",
};

/** "+1 (555) 010-2024" → "tel:+15550102024". */
export const phoneHref = (phone: string) => `tel:${phone.replace(/[^\d+]/g, "")}`;
