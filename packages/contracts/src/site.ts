import { z } from "zod";

/** GET /api/site: the contact details the pages show (SPEC's {email}, {phone}). */
export const contactDetails = z.object({
  support_email: z.string(),
  careers_email: z.string(),
  press_email: z.string(),
  phone: z.string(),
});
export type ContactDetails = z.infer<typeof contactDetails>;

export { CONTACT_DEFAULTS, phoneHref } from "./site-defaults.ts";
