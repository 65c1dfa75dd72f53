import type { ProviderCalls } from "../area-module.ts";
import type { Clock } from "../lib/clock.ts";
import { createDropboxClient } from "../providers/dropbox/dropbox.client.ts";
import type { DropboxSettings } from "../providers/dropbox/dropbox-oauth.client.ts";
import { createDriveClient } from "../providers/google/drive.client.ts";
import type { FetchLike } from "../providers/http.ts";
import type { MicrosoftSettings } from "../providers/microsoft/microsoft-oauth.client.ts";
import { createOneDriveClient } from "../providers/microsoft/onedrive.client.ts";
import { createS3Client } from "../providers/s3/s3.client.ts";
import type { EngineSettings } from "../sync/index.ts";
import type { Destination, DestinationCredentials, DestinationKind } from "./destination.ts";
import { createDropboxDestination } from "./dropbox.ts";
import type { GoogleTokens } from "./google-drive/caller.ts";
import type { FolderStore } from "./google-drive/folders.ts";
import { createGoogleDriveDestination } from "./google-drive.ts";
import { createOneDriveDestination } from "./onedrive.ts";
import { createS3Destination } from "./s3.ts";

export {
  classifyDestinationError,
  type Destination,
  type DestinationCapabilities,
  type DestinationFailure,
  DestinationRevokedError,
  type DestinationSession,
  type FileSpec,
  type FileTags,
  type FolderRecord,
  type StoredFile,
  UploadSessionGoneError,
} from "./destination.ts";
export { GoogleRevokedError } from "./google-drive/caller.ts";
export { GOOGLE_DRIVE } from "./google-drive.ts";
export {
  createLedger,
  type ItemResult,
  type Ledger,
  type LedgerItem,
  recordedResult,
  type SessionSeal,
} from "./ledger.ts";

/** The places backups go, wired once per process (one folder cache, one uploader per destination). */
export interface Destinations {
  googleDrive: Destination;
  /** The destination of a kind; every kind is wired (each user connects one of each at most). */
  of(kind: DestinationKind): Destination;
}

/** Wires Google Drive (its client over the app's recorded fetch) behind the seam. */
export function createDestinations(deps: {
  apisUrl: string;
  connections: GoogleTokens;
  /** drive_folders: the folder ids found or made, per user and Google account. */
  folders: FolderStore;
  settings: EngineSettings;
  clock: Clock;
  fetch?: FetchLike;
  /** Told the outcome of each streamed Drive upload (`fetch` does not see them). */
  recordStreamed?: (failed: boolean) => void;
  /** The other destinations, built by their adapters. */
  others?: Partial<Record<Exclude<DestinationKind, "google_drive">, Destination>>;
}): Destinations {
  const drive = createDriveClient(
    { apisUrl: deps.apisUrl },
    {
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      ...(deps.recordStreamed ? { recordStreamed: deps.recordStreamed } : {}),
    },
  );
  const googleDrive = createGoogleDriveDestination({
    drive,
    folders: deps.folders,
    connections: deps.connections,
    settings: deps.settings,
    clock: deps.clock,
  });
  const all: Partial<Record<DestinationKind, Destination>> = {
    ...deps.others,
    google_drive: googleDrive,
  };
  return {
    googleDrive,
    of(kind) {
      const d = all[kind];
      if (!d) throw new Error(`No adapter is wired for the ${kind} destination`);
      return d;
    },
  };
}

/** Dropbox, OneDrive and S3-compatible storage behind the seam, over their clients and the user's sealed credentials. */
export function otherDestinations(deps: {
  providers: {
    dropbox: Pick<DropboxSettings, "apiUrl" | "contentUrl" | "wwwUrl">;
    microsoft: Pick<MicrosoftSettings, "graphUrl">;
  };
  credentials: DestinationCredentials;
  settings: EngineSettings;
  clock: Clock;
  /** The status page's call counts (status/): each client reports its requests' outcomes. */
  calls?: Pick<ProviderCalls, "fetchFor" | "streamedFor" | "recordFor">;
  /** S3 endpoints only at public addresses (`S3_PRIVATE_ENDPOINTS` unset in live mode). */
  s3PublicOnly?: boolean;
}): Partial<Record<Exclude<DestinationKind, "google_drive">, Destination>> {
  const { credentials, settings, clock, calls } = deps;
  return {
    dropbox: createDropboxDestination({
      client: createDropboxClient(deps.providers.dropbox, {
        ...(calls
          ? { fetch: calls.fetchFor("dropbox"), recordStreamed: calls.streamedFor("dropbox") }
          : {}),
      }),
      credentials,
      settings,
      clock,
      webHome: `${deps.providers.dropbox.wwwUrl}/home`,
    }),
    onedrive: createOneDriveDestination({
      client: createOneDriveClient(deps.providers.microsoft, {
        ...(calls
          ? { fetch: calls.fetchFor("microsoft"), recordStreamed: calls.streamedFor("microsoft") }
          : {}),
      }),
      credentials,
      settings,
      clock,
    }),
    s3: createS3Destination({
      client: (s3) =>
        createS3Client(s3, {
          ...(calls ? { record: calls.recordFor("s3") } : {}),
          publicOnly: deps.s3PublicOnly ?? false,
        }),
      credentials,
      settings,
      clock,
    }),
  };
}
