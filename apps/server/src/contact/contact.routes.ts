import {
  contactDetails,
  contactMessage,
  contactMessagesQuery,
  contactMessagesResponse,
  contactReplyRequest,
  contactRequest,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import type { Config } from "../config.ts";
import { BODY_LIMITS } from "../http/body-limits.ts";
import { clientOf } from "../http/client-address.ts";
import { PUBLIC } from "../http/openapi.ts";
import { AppError } from "../lib/errors.ts";
import type { ContactService } from "./contact.service.ts";

const params = z.object({ id: z.string() });
const uuid = z.uuid();
const tags = ["contact"];

/** What these routes use of the application. */
export interface ContactRouteDeps {
  config: Config;
  contact: ContactService;
  guards: AuthGuards;
}

export function registerContactRoutes(app: FastifyInstance, ctx: ContactRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { contact, guards } = ctx;
  const onRequest = guards.requireAdmin;

  // The contact details every page shows, from the configuration.
  r.get(
    "/api/site",
    { schema: { tags, security: PUBLIC, response: { 200: contactDetails } } },
    async () => ({
      support_email: ctx.config.SUPPORT_EMAIL,
      careers_email: ctx.config.CAREERS_EMAIL,
      press_email: ctx.config.PRESS_EMAIL,
      phone: ctx.config.CONTACT_PHONE,
    }),
  );

  r.post(
    "/api/contact",
    {
      bodyLimit: BODY_LIMITS.contact,
      schema: {
        tags,
        security: PUBLIC,
        body: contactRequest,
        response: { 201: z.object({ id: z.string() }) },
      },
    },
    async (req, reply) => {
      const saved = await contact.submit(req.body, clientOf(req));
      return reply.code(201).send(saved);
    },
  );

  r.get(
    "/api/admin/messages",
    {
      onRequest,
      schema: {
        tags,
        querystring: contactMessagesQuery,
        response: { 200: contactMessagesResponse },
      },
    },
    async (req) => contact.list(req.query.limit, req.query.offset),
  );

  r.post(
    "/api/admin/messages/:id/reply",
    {
      onRequest,
      bodyLimit: BODY_LIMITS.adminReply,
      schema: { tags, params, body: contactReplyRequest, response: { 201: contactMessage } },
    },
    async (req, reply) => {
      const parsed = uuid.safeParse(req.params.id);
      if (!parsed.success) throw new AppError("not_found", "Message not found");
      const message = await contact.reply(parsed.data, principalOf(req).user.id, req.body.body);
      return reply.code(201).send(message);
    },
  );

  r.put(
    "/api/admin/messages/:id/handled",
    { onRequest, schema: { tags, params, response: { 200: contactMessage } } },
    async (req) => {
      const parsed = uuid.safeParse(req.params.id);
      if (!parsed.success) throw new AppError("not_found", "Message not found");
      return contact.markHandled(parsed.data, principalOf(req).user.id);
    },
  );
}
