import { z } from "zod";

/** Meta's deauthorize and data-deletion callbacks: a form body with the `signed_request`. */
export const metaCallbackBody = z.object({ signed_request: z.string().max(8192) });

export const metaDeauthorizeAnswer = z.object({ received: z.literal(true) });

/** What Meta shows the person who asked for deletion: where to check, and the code. */
export const metaDataDeletionAnswer = z.object({
  url: z.string(),
  confirmation_code: z.string(),
});

export const dataDeletionCodeParams = z.object({ code: z.string().min(1).max(64) });

/** The status page of a data-deletion request (`/data-deletion?code=`). */
export const dataDeletionStatus = z.object({
  confirmation_code: z.string(),
  status: z.literal("completed"),
  provider: z.enum(["instagram", "facebook"]),
  accounts_erased: z.number().int(),
  requested_at: z.string(),
  completed_at: z.string(),
});
export type DataDeletionStatus = z.infer<typeof dataDeletionStatus>;
