import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import type { MailService } from "../mail/index.ts";
import { createContactRepository } from "./contact.repository.ts";
import { registerContactRoutes } from "./contact.routes.ts";
import { type ContactService, createContactService } from "./contact.service.ts";

/** The contact form: inbox, hourly limit, acknowledgement mail, admin replies. */
export function createContactModule(deps: ModuleBase & { mail: MailService }) {
  const contact: ContactService = createContactService({
    repo: createContactRepository(deps.db),
    clock: deps.clock,
    maxPerHour: deps.config.CONTACT_MAX_PER_HOUR,
    mail: deps.mail,
    ...logOf(deps),
  });
  return {
    contact,
    routes: (app: FastifyInstance, guards: AuthGuards) =>
      registerContactRoutes(app, { config: deps.config, contact, guards }),
  };
}
