// The mail area's public surface: what other areas and the composition root may import.
export type { MailCategory } from "./categories.ts";
export { deliverMailJob, mailSweepJob } from "./mail.jobs.ts";
export { createMailModule } from "./mail.module.ts";
export type {
  AlertMailData,
  MailCategoryInfo,
  MailService,
  NamedTemplate,
  TemplateName,
} from "./mail.service.ts";
export { alertTemplate, defineCategory } from "./mail.service.ts";
