// The destinations area's public surface: what other areas and the composition root may import.
export type {
  Destination,
  DestinationCapabilities,
  DestinationCredentials,
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
export {
  createDropboxDestination,
  DROPBOX_RECONNECT,
  dropboxCapabilities,
} from "./dropbox.ts";
export type { ItemResult, Ledger, LedgerItem, SessionSeal } from "./ledger.ts";
export { createLedger, recordedResult } from "./ledger.ts";
export type { Destinations } from "./module.ts";
export { createDestinations, otherDestinations } from "./module.ts";
export { createOneDriveDestination, ONEDRIVE, onedriveCapabilities } from "./onedrive.ts";
export { createS3Destination, S3_KIND, s3Capabilities } from "./s3.ts";
