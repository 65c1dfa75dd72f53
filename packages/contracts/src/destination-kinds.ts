// The destinations' names, without zod: the web app's first screens import them at run time.
// `destinations.ts` re-exports them for everything else.

/**
 * The places a backup can go. Google Drive is every account's default; Dropbox and OneDrive
 * connect through OAuth into an app folder; S3-compatible storage with keys the user gives.
 */
export const DESTINATION_KINDS = ["google_drive", "dropbox", "onedrive", "s3"] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/** How each is named to people. */
export const DESTINATION_LABELS: Record<DestinationKind, string> = {
  google_drive: "Google Drive",
  dropbox: "Dropbox",
  onedrive: "OneDrive",
  s3: "S3 storage",
};

export const isDestinationKind = (value: unknown): value is DestinationKind =>
  typeof value === "string" && (DESTINATION_KINDS as readonly string[]).includes(value);
