// The destinations area's public surface: what other areas and the composition root may import.
export type {
  Destination,
  DestinationSession,
  FileSpec,
  OpenUpload,
  StoredFile,
} from "./destination.ts";
export {
  classifyDestinationError,
  DestinationRevokedError,
  UploadSessionGoneError,
} from "./destination.ts";
export type { ItemResult, Ledger, LedgerItem, SessionSeal } from "./ledger.ts";
export { createLedger, recordedResult } from "./ledger.ts";
export type { Destinations } from "./module.ts";
export { createDestinations } from "./module.ts";
export { createS3Destination, probeS3, S3_KIND, s3Capabilities } from "./s3.ts";
