import { z } from "zod";

import { DESTINATION_KINDS } from "./destination-kinds.ts";

export { type S3DestinationRequest, s3DestinationRequest } from "./destination-forms.ts";
export {
  DESTINATION_KINDS,
  DESTINATION_LABELS,
  type DestinationKind,
  isDestinationKind,
} from "./destination-kinds.ts";

/** One destination as Settings lists it (`GET /api/destinations`), Google Drive included. */
export const destinationInfo = z.object({
  kind: z.enum(DESTINATION_KINDS),
  label: z.string(),
  connected: z.boolean(),
  /** The account's e-mail, or `bucket at host` for S3; null when not connected. */
  account: z.string().nullable(),
  needs_reconnect: z.boolean(),
  /** Why it needs reconnecting, in the user's words. */
  status_reason: z.string().nullable(),
  /** How many Instagram accounts are backed up there. */
  accounts_using: z.number().int(),
});
export type DestinationInfo = z.infer<typeof destinationInfo>;

export const destinationsResponse = z.object({ destinations: z.array(destinationInfo) });
export type DestinationsResponse = z.infer<typeof destinationsResponse>;

/** `POST /api/destinations/s3/test`: the probe object was written, read back and deleted. */
export const s3TestResponse = z.object({ ok: z.literal(true), message: z.string() });

/** `PUT /api/oauth/instagram/accounts/{account_id}/destination`. */
export const accountDestinationRequest = z.object({ destination: z.enum(DESTINATION_KINDS) });
export const accountDestinationResponse = z.object({
  account_id: z.string(),
  destination: z.enum(DESTINATION_KINDS),
  /** Posts to copy to the new destination (its history), 0 when nothing changed. */
  posts_to_copy: z.number().int(),
  message: z.string(),
});
export type AccountDestinationResponse = z.infer<typeof accountDestinationResponse>;
