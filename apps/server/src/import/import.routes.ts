import {
  IMPORT_PLAN_MAX_BYTES,
  importFileResult,
  importPlan,
  importPlanRequest,
} from "@keepsake/contracts/import";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import { assertFitText } from "../http/validation.ts";
import { AppError } from "../lib/errors.ts";
import type { ImportService } from "./import.service.ts";
import { planSlots } from "./plan-slots.ts";

const tags = ["import"];
const uuid = z.uuid();
const accountParams = z.object({ id: z.string() });
const fileParams = z.object({ item: z.string(), key: z.string() });

function idOf(value: string, what: string): string {
  const parsed = uuid.safeParse(value);
  if (!parsed.success) throw new AppError("not_found", what);
  return parsed.data;
}

/** What these routes use of the application. */
export interface ImportRouteDeps {
  guards: AuthGuards;
  importer: ImportService;
}

/** Issue 31, Settings → Import: the export's plan, then each media file streamed to Drive. */
export function registerImportRoutes(app: FastifyInstance, ctx: ImportRouteDeps) {
  const onRequest = ctx.guards.requireUser;
  const slots = planSlots();

  app.register(async (scope) => {
    // The plan's JSON is parsed once its body has arrived and no other plan is being parsed.
    scope.addContentTypeParser(
      "application/json",
      { parseAs: "buffer", bodyLimit: IMPORT_PLAN_MAX_BYTES },
      (req, body, done) => {
        try {
          slots.parse(principalOf(req).user.id);
          done(null, JSON.parse(body.toString("utf8")));
        } catch (err) {
          const malformed = err instanceof SyntaxError;
          done(malformed ? new AppError("bad_request", "Malformed JSON body") : (err as Error));
        }
      },
    );
    scope.withTypeProvider<ZodTypeProvider>().post(
      "/api/import/accounts/:id/plan",
      {
        // Before a byte of the body is read: the caller, the account is theirs, and no other
        // plan of theirs is being sent or read.
        onRequest: [
          onRequest,
          async (req, reply) => {
            const userId = principalOf(req).user.id;
            const { id } = req.params as { id: string };
            assertFitText(req.params);
            await ctx.importer.ownAccount(userId, idOf(id, "Instagram account not found"));
            slots.take(userId, reply.raw);
          },
        ],
        bodyLimit: IMPORT_PLAN_MAX_BYTES,
        schema: {
          tags,
          params: accountParams,
          body: importPlanRequest,
          response: { 200: importPlan },
        },
      },
      async (req) =>
        ctx.importer.plan(
          principalOf(req).user.id,
          idOf(req.params.id, "Instagram account not found"),
          req.body,
        ),
    );
  });

  // The media file is the raw request body, handed to the service as a stream: nothing of it
  // is buffered whole or written to disk here.
  app.register(async (scope) => {
    // The body stays unread in `req.raw` until the service streams it.
    scope.addContentTypeParser("application/octet-stream", (_req, _payload, done) =>
      done(null, undefined),
    );
    scope.withTypeProvider<ZodTypeProvider>().put(
      "/api/import/items/:item/files/:key",
      {
        onRequest,
        schema: { tags, params: fileParams, response: { 200: importFileResult } },
      },
      async (req) => {
        const length = req.headers["content-length"];
        if (!req.headers["content-type"]?.startsWith("application/octet-stream")) {
          throw new AppError("invalid", "Send the file as application/octet-stream.");
        }
        return ctx.importer.putFile(
          principalOf(req).user.id,
          idOf(req.params.item, "This item is not part of an import of yours"),
          req.params.key,
          req.raw,
          length !== undefined && /^\d+$/.test(length) ? Number(length) : null,
        );
      },
    );
  });
}
