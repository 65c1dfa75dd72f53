// The mail area's public surface: what other areas and the composition root may import.
export type { MailCategory } from "./categories.ts";
export { isMailCategory } from "./categories.ts";
export { deliverMailJob, mailSweepJob } from "./mail.jobs.ts";
export { createMailModule } from "./mail.module.ts";
export type { MailService, TemplateName } from "./mail.service.ts";
