import type { ServerResponse } from "node:http";
import { AppError } from "../lib/errors.ts";

export const planBusy =
  "An import of yours is already being read. Wait until it has finished, then try again.";

/**
 * One plan request at a time per user in this process: a second one while the first is read
 * answers 409 before its body is read. A slot is given back when its response is finished or
 * its connection closed.
 */
export function planSlots() {
  const busy = new Set<string>();
  return {
    take(userId: string, res: ServerResponse) {
      if (busy.has(userId)) throw new AppError("conflict", planBusy);
      busy.add(userId);
      res.once("close", () => busy.delete(userId));
    },
  };
}
