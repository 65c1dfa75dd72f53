import type { FastifyInstance, onRequestAsyncHookHandler } from "fastify";
import { logOf, type ModuleBase } from "../area-module.ts";
import type { JobSender } from "../jobs/job.ts";
import type { Secrets } from "../lib/secrets.ts";
import { createMailRepository } from "./mail.repository.ts";
import { registerMailRoutes } from "./mail.routes.ts";
import { createMailService, type MailService, type MailServiceDeps } from "./mail.service.ts";
import { createSmtpSender } from "./smtp.ts";

/** The mail area: the outbox, templates, categories, unsubscribe and SMTP. */
export function createMailModule(
  deps: ModuleBase & {
    secrets: Secrets;
    queue: JobSender;
    /** A user's address and whether it is verified (the auth area's users). */
    users: MailServiceDeps["users"];
    /** Templates other areas define (the notifications area's alerts and digest). */
    templates?: MailServiceDeps["templates"];
  },
) {
  const { config } = deps;
  const mail: MailService = createMailService({
    repo: createMailRepository(deps.db),
    clock: deps.clock,
    queue: deps.queue,
    smtp: createSmtpSender({
      url: config.SMTP_URL,
      timeoutMs: config.MAIL_SMTP_TIMEOUT_SECONDS * 1000,
    }),
    from: config.MAIL_FROM,
    appUrl: config.appUrl,
    secret: deps.secrets.jwtSecret,
    sealKey: deps.secrets.encryptionKey,
    users: deps.users,
    settings: {
      smtpTimeoutMs: config.MAIL_SMTP_TIMEOUT_SECONDS * 1000,
      retryBaseMs: config.MAIL_RETRY_BASE_SECONDS * 1000,
      maxAttempts: config.MAIL_MAX_ATTEMPTS,
      capsPerHour: {
        contact: config.MAIL_HOURLY_CAP_CONTACT,
        "status-confirm": config.MAIL_HOURLY_CAP_STATUS_CONFIRM,
        registration: config.MAIL_HOURLY_CAP_REGISTRATION,
        "password-reset": config.MAIL_HOURLY_CAP_PASSWORD_RESET,
      },
    },
    ...(deps.templates ? { templates: deps.templates } : {}),
    ...logOf(deps),
  });
  return {
    mail,
    /** The admin's outbox view takes the admin guard (mail does not import auth). */
    routes(app: FastifyInstance, guards: { requireAdmin: onRequestAsyncHookHandler }) {
      registerMailRoutes(app, { mail, guards });
    },
  };
}
