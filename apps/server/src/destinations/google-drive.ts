import { createHash } from "node:crypto";
import type { Clock } from "../lib/clock.ts";
import type {
  DriveClient,
  DriveFile,
  DriveFileMetadata,
} from "../providers/google/drive.client.ts";
import { RESUMABLE_QUANTUM } from "../providers/google/drive.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import type { EngineSettings } from "../sync/index.ts";
import type {
  Destination,
  DestinationCapabilities,
  DestinationSession,
  FileSpec,
  StoredFile,
} from "./destination.ts";
import { type DriveCall, driveCallerFor, type GoogleTokens } from "./google-drive/caller.ts";
import { createFolders, type FolderStore } from "./google-drive/folders.ts";
import { appPropertiesOf, ITEM_KEY, POST_KEY, tagsOf } from "./google-drive/properties.ts";
import { createUploader, keepIfIntact } from "./google-drive/upload.ts";

export const GOOGLE_DRIVE = "google_drive";

/** Drive allows descriptions up to this many characters. */
const MAX_DESCRIPTION = 30_000;
const WEEK_MS = 7 * 24 * 3600 * 1000;

/** Drive's capabilities (destination.ts explains each). */
export const googleDriveCapabilities = (
  settings: Pick<EngineSettings, "multipartMaxBytes">,
): DestinationCapabilities => ({
  label: "Google Drive",
  maxSingleRequestBytes: settings.multipartMaxBytes,
  chunkQuantumBytes: RESUMABLE_QUANTUM,
  maxChunkBytes: null,
  lengthRequiredUpFront: false,
  verifiedHash: "md5",
  setsModifiedTime: true,
  findsByTags: true,
  sessionLifetimeMs: WEEK_MS,
});

/**
 * A Drive file as the seam describes it. An upload's answer carries only what `UPLOAD_FIELDS`
 * asks (id, md5, size, link): its name, tags and folder are those of the `spec` it was sent with.
 */
export const storedFile = (f: DriveFile, spec?: FileSpec): StoredFile => ({
  id: f.id,
  name: spec?.name ?? f.name,
  size: f.size,
  hash: f.md5Checksum,
  webUrl: f.webViewLink,
  tags: spec ? { ...spec.tags } : tagsOf(f.appProperties),
  folderId: spec?.folderId ?? f.parents[0] ?? null,
});

/** What Drive stores about a new file, all sent in the request that creates it. */
export function driveMetadata(spec: FileSpec): DriveFileMetadata {
  const time = spec.time?.toISOString();
  return {
    name: spec.name,
    mimeType: spec.mimeType,
    ...(time ? { createdTime: time, modifiedTime: time } : {}),
    ...(spec.description ? { description: spec.description.slice(0, MAX_DESCRIPTION) } : {}),
    appProperties: appPropertiesOf(spec.tags),
    parents: [spec.folderId],
  };
}

const md5 = (bytes: Buffer) => createHash("md5").update(bytes).digest("hex");

/**
 * Google Drive behind the seam, over `providers/google/drive.client.ts`: tags are
 * `appProperties`, folders are recorded in drive_folders (per Google account), small files go in
 * one multipart request, larger ones through a resumable session (`google-drive/upload.ts`),
 * every call through `google-drive/caller.ts` (backoff, one token refresh), md5 verified.
 */
export function createGoogleDriveDestination(deps: {
  drive: DriveClient;
  folders: FolderStore;
  connections: GoogleTokens;
  settings: EngineSettings;
  clock: Clock;
}): Destination {
  const { drive, settings, connections } = deps;
  const folders = createFolders({ repo: deps.folders, drive, clock: deps.clock });
  const upload = createUploader({ drive, settings });

  function session(userId: string, call: DriveCall, signal?: AbortSignal): DestinationSession {
    return {
      ensureFolder: (accountKey, path) => folders.ensure(call, userId, accountKey, path),
      forgetFolder: (accountKey, path) => folders.forget(userId, accountKey, path),

      async findPostFiles(postKey) {
        const found = await call((t) => drive.findByAppProperty(t, POST_KEY, postKey));
        const out = new Map<string, StoredFile>();
        for (const f of found) {
          const key = f.appProperties[ITEM_KEY];
          if (!key) continue;
          if (out.has(key)) await call((t) => drive.remove(t, f.id));
          else out.set(key, storedFile(f));
        }
        return out;
      },

      async findItem(itemKey) {
        return (await call((t) => drive.findByAppProperty(t, ITEM_KEY, itemKey))).map((f) =>
          storedFile(f),
        );
      },

      put(spec, source, recorder, control) {
        return upload({
          call,
          ledger: {
            rememberSession: (_item, uri, total) => recorder.opened(uri, total),
            forgetSession: () => recorder.closed(),
            record: async (_item, file) => storedFile(file, spec),
          },
          item: { key: spec.tags.item, name: spec.name },
          meta: driveMetadata(spec),
          resume: control.resume
            ? {
                uri: control.resume.ref,
                total: control.resume.total,
                received: control.resume.received,
              }
            : null,
          download: source.download,
          reopen: source.reopen,
          checkLease: control.checkLease,
          ...(control.signal ? { signal: control.signal } : signal ? { signal } : {}),
        });
      },

      async putBytes(spec, bytes) {
        const file = await call((t) =>
          drive.multipart(t, driveMetadata(spec), bytes, spec.mimeType),
        );
        await keepIfIntact(call, drive, file, md5(bytes));
        return storedFile(file, spec);
      },

      async uploadStatus(ref, total) {
        const st = await call((t) => drive.status(t, ref, total));
        if (st === "gone") return null;
        if (st.done) return { done: storedFile(st.file) };
        return { open: { ref, total, received: st.received } };
      },

      async replace(fileId, bytes, mimeType) {
        const file = await call((t) => drive.replaceFileMedia(t, fileId, bytes, mimeType));
        if (file.md5Checksum && file.md5Checksum !== md5(bytes)) {
          // The file keeps its id (others link to it): the next write replaces it again.
          throw new ProviderError(
            "google",
            "transient",
            "The file in Drive does not match what was sent (md5)",
          );
        }
        return storedFile(file);
      },

      get: async (fileId) => storedFile(await call((t) => drive.get(t, fileId))),
      remove: (fileId) => call((t) => drive.remove(t, fileId)),
    };
  }

  return {
    name: GOOGLE_DRIVE,
    capabilities: googleDriveCapabilities(settings),
    open: (userId, signal) =>
      session(userId, driveCallerFor(connections, settings, userId, signal), signal),
  };
}
