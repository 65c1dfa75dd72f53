import { contactMessagesQuery, contactRequest } from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.ts";
import { principalOf } from "../http/auth.plugin.ts";
import { HttpError, parseOr422 } from "../lib/errors.ts";

const idParams = z.object({ id: z.uuid() });

export function registerContactRoutes(app: FastifyInstance, ctx: AppContext) {
  const { contact, guards } = ctx;
  const adminOnly = { preHandler: guards.requireAdmin };

  // The contact details every page shows, from the configuration.
  app.get("/api/site", async () => ({
    support_email: ctx.config.SUPPORT_EMAIL,
    careers_email: ctx.config.CAREERS_EMAIL,
    press_email: ctx.config.PRESS_EMAIL,
    phone: ctx.config.CONTACT_PHONE,
  }));

  app.post("/api/contact", async (req, reply) => {
    const input = parseOr422(contactRequest, req.body);
    const saved = await contact.submit(input, req.ip);
    return reply.code(201).send(saved);
  });

  app.get("/api/admin/messages", adminOnly, async (req) => {
    const q = parseOr422(contactMessagesQuery, req.query);
    return contact.list(q.limit, q.offset);
  });

  app.put("/api/admin/messages/:id/handled", adminOnly, async (req) => {
    const parsed = idParams.safeParse(req.params);
    if (!parsed.success) throw new HttpError(404, "Message not found");
    return contact.markHandled(parsed.data.id, principalOf(req).user.id);
  });
}
