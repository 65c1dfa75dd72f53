import type { ServerResponse } from "node:http";
import { AppError } from "../lib/errors.ts";
import { importPlansOpen } from "../lib/metrics.ts";

export const planBusy =
  "An import of yours is already being read. Wait until it has finished, then try again.";
export const plansBusy =
  "Keepsake is reading another import right now. Try again in a few seconds.";

/**
 * Which import plans this process reads (issue 35). One per user: a second one while the first
 * is sent or read answers 409 before its body is read (`take`). And one parsed at a time in all:
 * a body that has arrived while another plan is parsed and recorded answers 503 with Retry-After
 * (`parse`), so however many arrive at once, one export's objects and rows are in memory. A slow
 * upload holds only its own user's slot. Slots are given back when the response is finished or
 * the connection closed. `keepsake_import_plans_open` counts the slots taken.
 */
export function planSlots() {
  const busy = new Set<string>();
  let parsing: string | null = null;
  return {
    take(userId: string, res: ServerResponse) {
      if (busy.has(userId)) throw new AppError("conflict", planBusy);
      busy.add(userId);
      importPlansOpen.inc();
      res.once("close", () => {
        busy.delete(userId);
        importPlansOpen.dec();
        if (parsing === userId) parsing = null;
      });
    },
    parse(userId: string) {
      if (parsing !== null) {
        throw new AppError("unavailable", plansBusy, { retryAfterSeconds: 5 });
      }
      parsing = userId;
    },
  };
}
