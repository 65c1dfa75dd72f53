import type { Clock } from "../lib/clock.ts";
import { reconnectWords } from "../providers/failure-words.ts";
import {
  type DriveItem,
  FRAGMENT_UNIT,
  MAX_FRAGMENT,
  MAX_SIMPLE_UPLOAD,
  type OneDriveClient,
} from "../providers/microsoft/onedrive.client.ts";
import { ONEDRIVE_FRAGMENT, uploadThroughSession } from "../providers/microsoft/onedrive-upload.ts";
import { quickXorHash } from "../providers/microsoft/quickxor.ts";
import { ProviderError } from "../providers/provider-error.ts";
import type { EngineSettings } from "../sync/index.ts";
import { type DestinationCall, destinationCaller } from "./caller.ts";
import {
  type Destination,
  type DestinationCapabilities,
  type DestinationCredentials,
  DestinationRevokedError,
  type DestinationSession,
  type FileSpec,
} from "./destination.ts";
import { joinPath, mismatch, notFound, parseRef, storedFile, timesOf } from "./onedrive/paths.ts";
import { createOneDriveUpload } from "./onedrive/upload.ts";

export const ONEDRIVE = "onedrive";

const RECONNECT = reconnectWords.onedrive;
const WEEK_MS = 7 * 24 * 3600 * 1000;
/** Folders known to exist, per user (bounded: forgotten all at once when full). */
const FOLDER_CACHE = 10_000;

/** OneDrive's capabilities (destination.ts explains each). */
export const onedriveCapabilities: DestinationCapabilities = {
  label: "OneDrive",
  maxSingleRequestBytes: MAX_SIMPLE_UPLOAD,
  chunkQuantumBytes: FRAGMENT_UNIT,
  maxChunkBytes: MAX_FRAGMENT,
  lengthRequiredUpFront: true,
  verifiedHash: "quickxor",
  setsModifiedTime: true,
  findsByTags: false,
  // Graph gives upload sessions an expirationDateTime, extended by each fragment; about a week.
  sessionLifetimeMs: WEEK_MS,
};

/**
 * OneDrive (Microsoft Graph) behind the seam, in the app folder (`/me/drive/special/approot`),
 * over `providers/microsoft/onedrive.client.ts`. A file's id is its path below the app folder
 * (`Keepsake/@user/2024/<name>`); Graph keeps no searchable app metadata, so Keepsake's ledger
 * is the index (`findsByTags: false`). Media is never overwritten (`onedrive/upload.ts`);
 * sidecars and comments files are (`putBytes`, `replace`: same path, same item). quickXorHash
 * is verified after every write; the post's time is the file's `fileSystemInfo`. Every call goes
 * through one `destinationCaller` per session (backoff honouring 429/503 Retry-After, one token
 * refresh, then `DestinationRevokedError`); 507 is `quota`.
 *
 * Media of unknown length (no Content-Length) is read into memory up to `unknownLengthLimit`
 * (default: Graph's largest fragment, just under 60 MiB) to learn its size, which OneDrive needs
 * before the first byte; longer media is refused with a permanent `length_required` error naming
 * the reason. Media of known length is piped from its download (nothing held but the piece in
 * flight): ≤ 4 MB in two requests (`PUT …/content`, `PATCH fileSystemInfo`), larger in one
 * `createUploadSession` and one per fragment (`fragmentBytes`, 10 MiB by default).
 */
export function createOneDriveDestination(deps: {
  client: OneDriveClient;
  credentials: Pick<DestinationCredentials, "accessToken" | "refused">;
  settings: EngineSettings;
  clock: Clock;
  /** Bytes per range request; a multiple of 320 KiB under 60 MiB. */
  fragmentBytes?: number;
  /** The most read into memory to learn an unknown length. */
  unknownLengthLimit?: number;
}): Destination {
  const { client, credentials, settings, clock } = deps;
  const fragmentBytes = deps.fragmentBytes ?? ONEDRIVE_FRAGMENT;
  if (fragmentBytes <= 0 || fragmentBytes % FRAGMENT_UNIT !== 0 || fragmentBytes > MAX_FRAGMENT)
    throw new Error("OneDrive fragments are multiples of 320 KiB under 60 MiB");
  const unknownLengthLimit = deps.unknownLengthLimit ?? MAX_FRAGMENT;
  const folders = new Set<string>();

  function session(userId: string, call: DestinationCall, signal?: AbortSignal) {
    const put = createOneDriveUpload({ client, call, fragmentBytes, unknownLengthLimit });
    const folderKey = (path: string) => `${userId}\n${path}`;

    /**
     * Writes Keepsake's own file at `path` whole, over what is there (same item); answers it,
     * or null when its quickXorHash is not that of `bytes`.
     */
    async function overwrite(
      path: string,
      bytes: Buffer,
      mimeType: string,
      spec?: FileSpec,
    ): Promise<DriveItem | null> {
      const times = spec ? timesOf(spec) : undefined;
      if (bytes.length > MAX_SIMPLE_UPLOAD) {
        return call(async (t) => {
          try {
            return await uploadThroughSession(client, t, {
              path,
              conflict: "replace",
              ...(times ? { times } : {}),
              source: (async function* () {
                yield bytes;
              })(),
              total: bytes.length,
              fragmentBytes,
              ...(signal ? { signal } : {}),
            });
          } catch (err) {
            if (err instanceof ProviderError && err.code === "quickxor_mismatch") return null;
            throw err;
          }
        });
      }
      const item = await call((t) => client.putSmall(t, path, bytes, "replace", mimeType));
      if (item.quickXorHash !== null && item.quickXorHash !== quickXorHash(bytes)) return null;
      return times ? call((t) => client.setTimes(t, item.id, times)) : item;
    }

    const s: DestinationSession = {
      async ensureFolder(_accountKey, path) {
        const id = joinPath(...path);
        if (!folders.has(folderKey(id))) {
          const there = await call((t) => client.getByPath(t, id));
          if (!there?.folder) {
            for (let i = 0; i < path.length; i++) {
              const parent = joinPath(...path.slice(0, i));
              const name = path[i] as string;
              await call((t) => client.createFolder(t, parent, name));
            }
          }
          if (folders.size >= FOLDER_CACHE) folders.clear();
          folders.add(folderKey(id));
        }
        return { id, recordedAt: clock.now(), adopted: false };
      },

      async forgetFolder(_accountKey, path) {
        const id = joinPath(...path);
        for (const k of folders) if (k.startsWith(folderKey(id))) folders.delete(k);
      },

      findPostFiles: async () => new Map(),
      findItem: async () => [],

      async put(spec, source, recorder, control) {
        const placed = await put(spec, source, recorder, {
          resume: control.resume,
          checkLease: control.checkLease,
          ...(control.signal ? { signal: control.signal } : signal ? { signal } : {}),
        });
        return storedFile(placed.path, placed.item, spec);
      },

      async putBytes(spec, bytes) {
        const path = joinPath(spec.folderId, spec.name);
        const item = await overwrite(path, bytes, spec.mimeType, spec);
        if (!item) {
          // Keepsake's own file, written whole: a corrupt one is removed and written again.
          await call((t) => client.removeByPath(t, path));
          throw mismatch();
        }
        return storedFile(path, item, spec);
      },

      async uploadStatus(ref, total) {
        const r = parseRef(ref);
        if (!r) return null;
        const st = await call(() => client.sessionStatus(r.url));
        if (st !== "gone") return { open: { ref, total, received: st } };
        // A finished session is gone too: its file is at the recorded path (made by it alone:
        // the session was opened with conflictBehavior `fail`).
        const there = await call((t) => client.getByPath(t, r.path));
        if (!there || there.folder || (total !== null && there.size !== total)) return null;
        return { done: storedFile(r.path, there) };
      },

      async replace(fileId, bytes, mimeType) {
        const there = await call((t) => client.getByPath(t, fileId));
        if (!there || there.folder) throw notFound(fileId);
        const item = await overwrite(fileId, bytes, mimeType);
        // The file keeps its path (others link to it): the next write replaces it again.
        if (!item) throw mismatch();
        return storedFile(fileId, item);
      },

      async get(fileId) {
        const there = await call((t) => client.getByPath(t, fileId));
        if (!there || there.folder) throw notFound(fileId);
        return storedFile(fileId, there);
      },

      remove: (fileId) => call((t) => client.removeByPath(t, fileId)),
    };
    return s;
  }

  return {
    name: ONEDRIVE,
    capabilities: onedriveCapabilities,
    open(userId, signal) {
      const call = destinationCaller({
        credential: (force) => credentials.accessToken(userId, "onedrive", { forceRefresh: force }),
        revoked: (message) => new DestinationRevokedError(ONEDRIVE, message),
        reconnect: RECONNECT,
        refused: async (token, reason) => {
          await credentials.refused?.(userId, "onedrive", reason, token);
        },
        settings,
        signal,
      });
      return session(userId, call, signal);
    },
  };
}
