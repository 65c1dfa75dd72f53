import type { Clock } from "../lib/clock.ts";
import { DROPBOX_BLOCK, dropboxContentHash } from "../providers/dropbox/content-hash.ts";
import {
  DROPBOX_MAX_SINGLE,
  type DropboxClient,
  type DropboxFile,
} from "../providers/dropbox/dropbox.client.ts";
import {
  DROPBOX_CHUNK,
  hashMismatch,
  pipedAppendBytes,
} from "../providers/dropbox/dropbox-upload.ts";
import { reconnectWords } from "../providers/failure-words.ts";
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
  type StoredFile,
} from "./destination.ts";
import { filePath, folderPath, parseSessionRef, storedFile } from "./dropbox/files.ts";
import { createDropboxUploader } from "./dropbox/upload.ts";

export const DROPBOX = "dropbox";

/** What the user reads when Dropbox refuses the grant for good. */
export const DROPBOX_RECONNECT = reconnectWords.dropbox;

const WEEK_MS = 7 * 24 * 3600 * 1000;
/** Folder paths this process made, per user (bounded). */
const MAX_CACHED_FOLDERS = 20_000;

/**
 * Dropbox's capabilities (destination.ts explains each). Files up to 8 MiB go in one
 * `files/upload`, piped as downloaded when their length is known (else read into memory);
 * larger ones through an upload session: of known length piped whole into appends of the
 * engine's chunk size (64 MiB; 4 MiB blocks), the last one shorter, nothing held; else in
 * appends of 8 MiB, one held at a time. Dropbox has no searchable file properties in an app
 * folder Keepsake uses: the ledger is the index.
 */
export const dropboxCapabilities: DestinationCapabilities = {
  label: "Dropbox",
  maxSingleRequestBytes: DROPBOX_CHUNK,
  chunkQuantumBytes: DROPBOX_BLOCK,
  maxChunkBytes: DROPBOX_MAX_SINGLE,
  lengthRequiredUpFront: false,
  verifiedHash: "dropbox_content_hash",
  setsModifiedTime: true,
  findsByTags: false,
  sessionLifetimeMs: WEEK_MS,
};

const gone = (what: string) =>
  new ProviderError("dropbox", "not_found", `Dropbox has no such file (${what})`, {
    code: "not_found",
  });

/**
 * Dropbox behind the seam, over `providers/dropbox/*`, in the app folder (`Apps/Keepsake`).
 * Identity is the path: a folder's id is its path ("Keepsake/@user/2024"), a file goes at
 * `folder/name`; a file's id is Dropbox's `id:…`. Every call goes through one caller per
 * session (backoff, one token refresh, revoked → `DestinationRevokedError`); every write is
 * checked against Dropbox's `content_hash`; the post's time is the file's `client_modified`.
 */
export function createDropboxDestination(deps: {
  client: DropboxClient;
  credentials: Pick<DestinationCredentials, "accessToken" | "refused">;
  settings: EngineSettings;
  clock: Clock;
  /** Where a person opens the files (dropbox.com's files page unless told otherwise). */
  webHome?: string;
}): Destination {
  const { client, credentials, settings, clock } = deps;
  const stored = (f: DropboxFile, spec?: FileSpec) => storedFile(f, spec, deps.webHome);
  const upload = createDropboxUploader({
    client,
    chunkBytes: DROPBOX_CHUNK,
    // As many bytes a request as Drive's resumable chunks (64 MiB).
    pipeBytes: pipedAppendBytes(settings.chunkBytes),
    smallBytes: dropboxCapabilities.maxSingleRequestBytes,
  });
  const madeFolders = new Set<string>();

  /** The answer's hash must be that of the bytes sent (Dropbox also checks the one we send). */
  function verified(file: DropboxFile, hash: string): DropboxFile {
    // An overwritten file keeps its id (others link to it): the next write replaces it again.
    if (file.contentHash !== hash) throw hashMismatch();
    return file;
  }

  async function fileById(call: DestinationCall, fileId: string): Promise<DropboxFile> {
    const there = await call((t) => client.getMetadata(t, fileId));
    if (!there?.file) throw gone(fileId);
    return there.file;
  }

  function session(
    userId: string,
    call: DestinationCall,
    signal?: AbortSignal,
  ): DestinationSession {
    return {
      async ensureFolder(_accountKey, path) {
        const id = path.join("/");
        const key = `${userId}\u0000${id.toLowerCase()}`;
        if (!madeFolders.has(key)) {
          await call((t) => client.createFolder(t, folderPath(id)));
          if (madeFolders.size >= MAX_CACHED_FOLDERS) madeFolders.clear();
          madeFolders.add(key);
        }
        return { id, recordedAt: clock.now(), adopted: false };
      },
      // Uploads make missing parent folders again: nothing to forget.
      forgetFolder: async () => {},
      // Keepsake's ledger is the index of what it wrote to Dropbox.
      findPostFiles: async () => new Map<string, StoredFile>(),
      findItem: async () => [],

      async put(spec, source, recorder, control) {
        const sig = control.signal ?? signal;
        const file = await upload(call, spec, source, recorder, {
          resume: control.resume,
          checkLease: control.checkLease,
          ...(sig ? { signal: sig } : {}),
        });
        return stored(file, spec);
      },

      async putBytes(spec, bytes) {
        const hash = dropboxContentHash(bytes);
        const commit = {
          path: filePath(spec.folderId, spec.name),
          mode: "overwrite" as const,
          ...(spec.time ? { clientModified: spec.time } : {}),
        };
        const file = await call((t) => client.upload(t, commit, [bytes], hash, signal));
        return stored(verified(file, hash), spec);
      },

      async uploadStatus(ref, total) {
        const r = parseSessionRef(ref);
        if (!r) return null;
        const held = await call((t) => client.sessionOffset(t, r.sessionId, 0));
        if (held !== null) return { open: { ref, total, received: held } };
        if (!r.contentHash) return null;
        // Gone after its finish was recorded: finished when the path holds those bytes.
        const there = await call((t) => client.getMetadata(t, r.path));
        if (there?.file?.contentHash === r.contentHash) return { done: stored(there.file) };
        return null;
      },

      async replace(fileId, bytes) {
        const hash = dropboxContentHash(bytes);
        const current = await fileById(call, fileId);
        const commit = { path: current.pathDisplay, mode: "overwrite" as const };
        const file = await call((t) => client.upload(t, commit, [bytes], hash, signal));
        return stored(verified(file, hash));
      },

      get: async (fileId) => stored(await fileById(call, fileId)),
      remove: (fileId) => call((t) => client.remove(t, fileId)),
    };
  }

  return {
    name: DROPBOX,
    capabilities: dropboxCapabilities,
    open: (userId, signal) =>
      session(
        userId,
        destinationCaller({
          credential: (force) => credentials.accessToken(userId, DROPBOX, { forceRefresh: force }),
          revoked: (message) => new DestinationRevokedError(DROPBOX, message),
          reconnect: DROPBOX_RECONNECT,
          refused: async (token, reason) => {
            await credentials.refused?.(userId, DROPBOX, reason, token);
          },
          settings,
          signal,
        }),
        signal,
      ),
  };
}
