import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Ctx } from "../../context.ts";
import { clearDestinationFaults, destinationFaults } from "../../destination-faults.ts";
import { CONTROL as c, handle } from "./handle.ts";

/**
 * Dropbox and OneDrive upload faults, as Drive and S3 have them: `cut` drops the connection of
 * the next upload request whose body reaches `after_bytes` (Dropbox keeps nothing of that
 * request, OneDrive its whole 320 KiB units), or with `lose_answer` stores the request in full
 * and drops the connection instead of answering; `corrupt` stores the next `count` commits with
 * a flipped first byte, so their hash differs from what was sent.
 */
export function registerDestinationControl(app: FastifyInstance, ctx: Ctx): void {
  ctx.resetHooks.push(() => clearDestinationFaults(ctx));
  for (const provider of ["dropbox", "onedrive"] as const) {
    app.post(
      `${c}/${provider}/cut`,
      handle(
        z.object({
          after_bytes: z.number().int().min(0),
          count: z.number().int().min(1).default(1),
          lose_answer: z.boolean().default(false),
        }),
        (b) => {
          const faults = destinationFaults(ctx, provider);
          faults.cuts.push({
            afterBytes: b.after_bytes,
            remaining: b.count,
            loseAnswer: b.lose_answer,
          });
          return { cuts: faults.cuts };
        },
      ),
    );
    app.post(
      `${c}/${provider}/corrupt`,
      handle(z.object({ count: z.number().int().min(1).default(1) }), (b) => {
        const faults = destinationFaults(ctx, provider);
        faults.corrupt += b.count;
        return { corrupt_commits: faults.corrupt };
      }),
    );
  }
}
