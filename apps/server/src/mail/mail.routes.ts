import {
  adminOutboxQuery,
  adminOutboxResponse,
  unsubscribeInfo,
  unsubscribeQuery,
  unsubscribeResult,
} from "@keepsake/contracts";
import type { FastifyInstance, onRequestAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { PUBLIC } from "../http/openapi.ts";
import type { MailService } from "./mail.service.ts";

const tags = ["mail"];

/** What these routes use of the application. */
export interface MailRouteDeps {
  mail: MailService;
  /** The admin guard (auth area), passed in: mail does not import auth. */
  guards: { requireAdmin: onRequestAsyncHookHandler };
}

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

export function registerMailRoutes(app: FastifyInstance, ctx: MailRouteDeps) {
  const { mail, guards } = ctx;

  // The unsubscribe link of every non-essential message; no sign-in. GET describes (the page
  // asks before it acts: link scanners open GET links), POST unsubscribes — including RFC 8058
  // one-click, which mail clients send as a form body `List-Unsubscribe=One-Click`.
  app.register(async (scope) => {
    scope.addContentTypeParser(
      ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data"],
      { parseAs: "string" },
      (_req, body, done) => done(null, body),
    );
    const r = scope.withTypeProvider<ZodTypeProvider>();
    r.get(
      "/api/mail/unsubscribe",
      {
        schema: {
          tags,
          security: PUBLIC,
          querystring: unsubscribeQuery,
          response: { 200: unsubscribeInfo },
        },
      },
      async (req) => mail.describeUnsubscribe(req.query.token),
    );
    r.post(
      "/api/mail/unsubscribe",
      {
        schema: {
          tags,
          security: PUBLIC,
          querystring: unsubscribeQuery,
          response: { 200: unsubscribeResult },
        },
      },
      async (req) => mail.unsubscribe(req.query.token),
    );
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    "/api/admin/mail",
    {
      onRequest: guards.requireAdmin,
      schema: { tags, querystring: adminOutboxQuery, response: { 200: adminOutboxResponse } },
    },
    async (req) => {
      const { items, counts } = await mail.outbox({
        limit: req.query.limit,
        offset: req.query.offset,
        ...(req.query.status ? { status: req.query.status } : {}),
      });
      return {
        counts,
        messages: items.map((m) => ({
          id: m.id,
          category: m.category,
          template: m.template,
          to: m.to_address,
          subject: m.subject,
          status: m.status,
          attempts: m.attempts,
          error: m.last_error,
          smtp_response: m.smtp_response,
          created_at: iso(m.created_at) as string,
          sent_at: iso(m.sent_at),
          next_attempt_at: m.status === "queued" ? iso(m.next_attempt_at) : null,
        })),
      };
    },
  );
}
