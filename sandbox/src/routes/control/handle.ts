import type { FastifyReply } from "fastify";
import { z } from "zod";

export const CONTROL = "/_control";

function bad(reply: FastifyReply, error: unknown): FastifyReply {
  const message =
    error instanceof z.ZodError
      ? error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")
      : String(error);
  return reply.code(400).send({ error: message });
}

/** A control route with a JSON body checked by `schema`; answers 400 with the issues when it does not fit. */
export const handle =
  <T extends z.ZodType>(
    schema: T,
    fn: (body: z.infer<T>, reply: FastifyReply, req: { params: unknown }) => unknown,
  ) =>
  async (req: { body: unknown; params: unknown }, reply: FastifyReply) => {
    let body: z.infer<T>;
    try {
      body = schema.parse(req.body ?? {});
    } catch (e) {
      return bad(reply, e);
    }
    const out = await fn(body, reply, req);
    return reply.sent ? reply : reply.send(out ?? { ok: true });
  };
