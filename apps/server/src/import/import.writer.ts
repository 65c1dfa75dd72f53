import type { Readable } from "node:stream";
import { DESTINATION_LABELS, type DestinationKind, isDestinationKind } from "@keepsake/contracts";
import { type DestinationState, destinationReconnectWords } from "../connections/index.ts";
import {
  createLedger,
  DestinationRevokedError,
  type DestinationSession,
  type Destinations,
  type FileSpec,
  type LedgerItem,
  type OpenUpload,
  type SessionSeal,
  type StoredFile,
  UploadSessionGoneError,
} from "../destinations/index.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { ProviderError } from "../providers/provider-error.ts";
import {
  importFolderPath,
  importMetaName,
  importMime,
  importSidecar,
  SOURCE_VALUE,
} from "./import.naming.ts";
import type { ImportRepository } from "./import.repository.ts";
import { type ImportedPost, importedPost } from "./imported-post.ts";
import type { ImportFileRow, ImportItemRow } from "./tables.ts";

/** An item of an export with its account's handle (which names its folder). */
export type NamedItem = ImportItemRow & { username: string };

const words = {
  brokeOff:
    "The file's upload from your browser broke off before its end. Choose the export again to continue where it stopped.",
  destination: (label: string, detail: string) => `${label} did not accept the file: ${detail}`,
} as const;

/** The browser's request body stopped before its end. */
class BodyBrokeOff extends Error {}

/**
 * Whether what a file row records (its file id, its session) is in the destination's account
 * `key`: written there, or before accounts were recorded (owner '').
 */
export const recordedIn = (f: { owner: string }, key: string) => f.owner === key || f.owner === "";

/**
 * What an import writes to the destination, through the seam (destinations/): each media file
 * streamed from the browser's request with the backups' uploader, its upload session and file
 * id recorded in import_files by the one ledger, and each item's sidecar once its files are
 * there. Files go where the API's posts go (Keepsake / @user / YYYY, stories too); what an
 * earlier version filed under YYYY / Stories is found by its tags, never written again.
 */
export function createImportWriter(deps: {
  repo: ImportRepository;
  destinations: Pick<Destinations, "of">;
  sessions: SessionSeal;
  clock: Clock;
  destinationState(userId: string, kind: DestinationKind): Promise<DestinationState>;
  recordImportedPost(p: ImportedPost): Promise<void>;
}) {
  const { repo, clock } = deps;

  /** The item's file rows, each recording the destination's account `owner` it writes in. */
  const ledgerFor = (itemId: string, owner: string) =>
    createLedger({
      save: (i: LedgerItem, fields, now) => repo.saveFile(itemId, i.key, { ...fields, owner }, now),
      clock,
      sessions: deps.sessions,
    });

  /** The file's tags and times, as an API backup's (with the export as its source). */
  function specOf(
    item: NamedItem,
    file: { name: string; file_key: string },
    folderId: string,
    mimeType: string,
  ): FileSpec {
    return {
      folderId,
      name: file.name,
      mimeType,
      time: new Date(item.taken_at),
      ...(item.caption ? { description: item.caption } : {}),
      tags: { item: file.file_key, post: item.item_key, source: SOURCE_VALUE },
    };
  }

  /** What the import wrote with this item tag (files of other origins are not its own). */
  async function mine(d: DestinationSession, key: string): Promise<StoredFile | undefined> {
    return (await d.findItem(key)).find((f) => f.tags.source === SOURCE_VALUE);
  }

  const folderOf = (d: DestinationSession, accountKey: string, item: NamedItem) =>
    d.ensureFolder(accountKey, importFolderPath(item.username, new Date(item.taken_at)));

  /** The item's destination, when it can be written to (else the user's words why not). */
  async function targetOf(userId: string, item: NamedItem) {
    const state = await deps.destinationState(userId, item.destination);
    if (state.problem !== null) throw new AppError("conflict", state.problem);
    return { d: deps.destinations.of(item.destination).open(userId), key: state.accountKey };
  }

  /** Streams one media file from the browser's request; answers its file id. */
  async function putMedia(
    userId: string,
    item: NamedItem,
    recorded: ImportFileRow,
    body: Readable,
    total: number,
  ): Promise<string> {
    const { d, key } = await targetOf(userId, item);
    let file = recorded;
    if (!recordedIn(recorded, key)) {
      // What was recorded in another account of the destination (connected again as someone
      // else) is not here: forgotten first (a request that breaks off below must not leave the
      // other account's file id under this account), then written from its first byte.
      const forgotten = {
        drive_file_id: null,
        size_bytes: null,
        md5: null,
        web_url: null,
        upload_session_uri: null,
        upload_total: null,
      };
      await repo.saveFile(item.id, recorded.file_key, { ...forgotten, owner: key }, clock.now());
      // (Nothing of this file was begun in this account before this request.)
      file = { ...recorded, ...forgotten, owner: key, started_at: null };
    }
    const ledger = ledgerFor(item.id, key);
    const li: LedgerItem = { key: file.file_key, name: file.name };
    let resume: OpenUpload | null = null;
    const uri = ledger.openSession(file);
    if (uri) {
      const sessionTotal = file.upload_total === null ? null : Number(file.upload_total);
      const st = await d.uploadStatus(uri, sessionTotal);
      if (st && "done" in st) {
        body.resume();
        return (await ledger.record(li, st.done, false)).fileId;
      }
      if (st && sessionTotal === total) resume = { ...st.open, total };
      else await ledger.forgetSession(li);
    } else if (file.started_at) {
      // An earlier request began this file and may have created it before recording it.
      const found = await mine(d, file.file_key);
      if (found) {
        body.resume();
        return (await ledger.record(li, found, true)).fileId;
      }
    }
    const folder = await folderOf(d, key, item);
    let broke = false;
    body.on("aborted", () => {
      broke = true;
    });
    const download = new Response(
      toWeb(body, () => (broke = true)),
      { headers: { "content-length": String(total) } },
    );
    const spec = specOf(item, file, folder.id, importMime(file.uri, file.media_type));
    try {
      const stored = await d.put(
        spec,
        {
          download,
          // A request body is read once: the browser sends the file again, and the recorded
          // session continues from what the destination holds.
          reopen: async () => {
            throw new BodyBrokeOff();
          },
        },
        ledger.recorder(li),
        {
          resume,
          checkLease: () => {
            if (broke) throw new BodyBrokeOff();
          },
        },
      );
      return (await ledger.record(li, stored, false)).fileId;
    } catch (err) {
      if (broke) throw new BodyBrokeOff();
      if (err instanceof UploadSessionGoneError) {
        await ledger.forgetSession(li);
        throw new BodyBrokeOff();
      }
      throw err;
    }
  }

  /** When every file of the item is in the destination: its sidecar (once), and the item completed. */
  async function finishItem(userId: string, item: NamedItem): Promise<boolean> {
    if (item.status === "completed") return true;
    const files = await repo.itemFiles(item.id);
    if (files.some((f) => !f.drive_file_id)) return false;
    const { d, key } = await targetOf(userId, item);
    if (files.some((f) => !recordedIn(f, key))) return false;
    const folder = await folderOf(d, key, item);
    const metaKey = `${item.item_key}_meta`;
    let sidecarId = (await mine(d, metaKey))?.id;
    if (!sidecarId) {
      const content = Buffer.from(
        JSON.stringify(importSidecar(item, item.username, files), null, 2),
      );
      const meta = { name: importMetaName(item, files), file_key: metaKey };
      sidecarId = (await d.putBytes(specOf(item, meta, folder.id, "application/json"), content)).id;
    }
    // Before the item is marked completed: a crash in between leaves it to finish again.
    await deps.recordImportedPost(importedPost(item, files, key));
    const first = await repo.completeItem(item.id, sidecarId, clock.now());
    if (!first) {
      // Another request finished the item at the same moment: keep the sidecar it recorded.
      const again = await repo.findItem(userId, item.id);
      if (again?.sidecar_file_id && again.sidecar_file_id !== sidecarId) {
        await d.remove(sidecarId).catch(() => {});
      }
    }
    return true;
  }

  return { putMedia, finishItem };
}

/** A Node stream as a web stream; `onError` runs when the browser's request breaks off. */
function toWeb(body: Readable, onError: () => void): ReadableStream<Uint8Array> {
  const it = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await it.next();
        if (r.done) controller.close();
        else controller.enqueue(new Uint8Array(r.value as Buffer));
      } catch (err) {
        onError();
        controller.error(err);
      }
    },
    async cancel() {
      await it.return?.();
    },
  });
}

const PROVIDER_LABEL: Record<string, string> = {
  google: DESTINATION_LABELS.google_drive,
  dropbox: DESTINATION_LABELS.dropbox,
  microsoft: DESTINATION_LABELS.onedrive,
  s3: DESTINATION_LABELS.s3,
};

/** A failure as the answer the browser gets. */
export function asAppError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof BodyBrokeOff) return new AppError("bad_request", words.brokeOff);
  if (err instanceof DestinationRevokedError) {
    const kind = isDestinationKind(err.destination) ? err.destination : "google_drive";
    return new AppError("conflict", destinationReconnectWords(kind));
  }
  if (err instanceof ProviderError) {
    if (err.provider === "instagram") return new AppError("bad_request", words.brokeOff);
    return new AppError(
      "upstream",
      words.destination(PROVIDER_LABEL[err.provider] ?? "The storage", err.message),
    );
  }
  return err;
}
