import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { syncMessages as m } from "@keepsake/contracts";
import type { ImportFileResult, ImportPlan, ImportPlanRequest } from "@keepsake/contracts/import";
import {
  type ExportItem,
  ExportRefusedError,
  readInstagramExport,
} from "@keepsake/contracts/instagram-export";
import {
  type BackupItem,
  createUploader,
  driveCallerFor,
  type Folders,
  GoogleRevokedError,
  ITEM_KEY,
  type ItemResult,
  keepIfIntact,
  type Ledger,
  type OpenSession,
  POST_KEY,
  SessionGoneError,
  type SessionSeal,
} from "../backups/index.ts";
import { postLimit, tierLabel } from "../billing/index.ts";
import type { ConnectionTokens } from "../connections/index.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { reconnectWords } from "../providers/failure-words.ts";
import type { DriveClient, DriveFileMetadata } from "../providers/google/drive.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import type { EngineSettings } from "../sync/index.ts";
import {
  exportFileKey,
  exportItemKey,
  importFileName,
  importFolderPath,
  importMetaName,
  importMime,
  importSidecar,
  nameId,
  SOURCE_KEY,
  SOURCE_VALUE,
} from "./import.naming.ts";
import type { ImportRepository, NewImportItem } from "./import.repository.ts";
import { importSummary } from "./import.summary.ts";
import { type ImportedPost, importedPost } from "./imported-post.ts";
import type { ImportFileRow, ImportItemRow } from "./tables.ts";

/** What the import area reads of other areas: the account, the plan, Drive, known posts. */
export interface ImportDirectory {
  accountWithOwner(accountId: string): Promise<
    | {
        id: string;
        user_id: string;
        username: string;
      }
    | undefined
  >;
  userTier(userId: string): Promise<string | undefined>;
  findGoogleConnection(
    userId: string,
  ): Promise<{ google_sub: string; status: "active" | "needs_reconnection" } | undefined>;
  /** The account's posts (from the API) with one of `ids`, or posted between the times. */
  postsForImportMatch(
    accountId: string,
    ids: string[],
    from: Date,
    to: Date,
  ): Promise<
    { instagram_id: string; posted_at: Date; caption: string | null; child_ids: string[] }[]
  >;
  newestPostTimes(userId: string, limit: number): Promise<Date[]>;
  /**
   * An item whose files and sidecar are in Drive becomes a post of its account with a completed
   * backup (the sync and backups areas write them): the grid, /backups and the counts show it,
   * "from your export". Idempotent.
   */
  recordImportedPost(p: ImportedPost): Promise<void>;
}

export interface ImportServiceDeps {
  repo: ImportRepository;
  directory: ImportDirectory;
  connections: Pick<ConnectionTokens, "googleAccessToken">;
  drive: DriveClient;
  folders: Folders;
  settings: EngineSettings;
  sessions: SessionSeal;
  clock: Clock;
}

/** An item of the export and a post are the same when their times are this close (and captions equal). */
const SAME_TIME_MS = 2_000;
/** How long one upload request holds its file (renewed while it runs). */
const FILE_LEASE_MS = 120_000;

const messages = {
  accountNotFound: "Instagram account not found",
  itemNotFound: "This item is not part of an import of yours",
  fileNotFound: "This file is not part of the item",
  known: "Keepsake already has this item: it is not copied again.",
  overLimit: (limit: number, tier: string) =>
    `This item is beyond your ${tier} plan's limit of ${limit.toLocaleString("en-US")} posts. Upgrade to import it.`,
  busy: "This file is being uploaded by another request. Try again in a minute.",
  noLength: "The file's length (Content-Length) is required.",
  brokeOff:
    "The file's upload from your browser broke off before its end. Choose the export again to continue where it stopped.",
  drive: (detail: string) => `Google Drive did not accept the file: ${detail}`,
} as const;

const normCaption = (c: string | null) => (c ?? "").trim().normalize("NFC");

/** The browser's request body stopped before its end. */
class BodyBrokeOff extends Error {}

/**
 * Issue 31: an Instagram data export into Drive, exactly once. The browser opens the ZIP and
 * sends its JSON (`plan`): the server parses it itself, records each item once per account
 * (a second import of the same export adds nothing), recognises what Keepsake has from the
 * API (the media id in the file names, else the time within 2 s and the caption) and applies the
 * plan's post limit. Then each media file is streamed from the request body into Drive with the
 * backup engine's uploader (`putFile`): a resumable session is recorded before its first byte
 * and the Drive id the moment it exists, so a request cut off mid-file resumes (or adopts what
 * Drive holds) on the next try instead of uploading again.
 */
export function createImportService(deps: ImportServiceDeps) {
  const { repo, directory, drive, folders, clock, settings } = deps;
  const upload = createUploader({ drive, settings });

  async function ownAccount(userId: string, accountId: string) {
    const account = await directory.accountWithOwner(accountId);
    if (!account || account.user_id !== userId)
      throw new AppError("not_found", messages.accountNotFound);
    return account;
  }

  async function parse(username: string, body: ImportPlanRequest) {
    const texts = new Map(body.files.map((f) => [f.path, f.text]));
    try {
      return await readInstagramExport(
        {
          paths: body.paths,
          async readText(path) {
            const text = texts.get(path);
            if (text === undefined) throw new Error(`missing ${path}`);
            return text;
          },
        },
        username,
      );
    } catch (err) {
      if (err instanceof ExportRefusedError) throw new AppError("invalid", err.message);
      throw err;
    }
  }

  /** The rows an export's items become (before matching). */
  function toRecord(it: ExportItem, known: boolean): NewImportItem {
    const key = exportItemKey(it);
    const id = nameId(it);
    return {
      item_key: key,
      kind: it.kind,
      taken_at: new Date(it.taken_at),
      caption: it.caption,
      status: known ? "known" : "pending",
      files: it.media.map((f, i) => ({
        file_key: exportFileKey(it, i),
        uri: f.uri,
        name: importFileName(it, id, i),
        media_type: f.media_type,
      })),
    };
  }

  /** Which of the export's items Keepsake already has (from the API, or imported under another key). */
  async function matchKnown(accountId: string, items: ExportItem[]) {
    const times = items.map((i) => new Date(i.taken_at).getTime());
    const from = new Date(Math.min(...times) - SAME_TIME_MS);
    const to = new Date(Math.max(...times) + SAME_TIME_MS);
    const ids = [
      ...new Set(items.flatMap((i) => i.media.map((f) => f.media_id).filter((x) => x !== null))),
    ] as string[];
    const posts = await directory.postsForImportMatch(accountId, ids, from, to);
    const postIds = new Set(posts.flatMap((p) => [p.instagram_id, ...p.child_ids]));
    const imported = await repo.importedTimes(accountId, from, to);
    const near = (at: number, caption: string | null, list: { at: number; caption: string }[]) =>
      list.some((p) => Math.abs(p.at - at) <= SAME_TIME_MS && p.caption === normCaption(caption));
    const postTimes = posts.map((p) => ({
      at: p.posted_at.getTime(),
      caption: normCaption(p.caption),
    }));
    const keys = new Set(items.map((i) => exportItemKey(i)));
    const importedElsewhere = imported
      .filter((r) => !keys.has(r.item_key))
      .map((r) => ({ at: new Date(r.taken_at).getTime(), caption: normCaption(r.caption) }));
    const fromApi = new Set<ExportItem>();
    const skip = new Set<ExportItem>();
    for (const it of items) {
      const at = new Date(it.taken_at).getTime();
      const byId = it.media.some((f) => f.media_id !== null && postIds.has(f.media_id));
      if (byId || (it.kind !== "story" && near(at, it.caption, postTimes))) fromApi.add(it);
      else if (near(at, it.caption, importedElsewhere)) skip.add(it);
    }
    return { fromApi, skip };
  }

  /**
   * The plan's post limit over the user's posts and imported items together (newest first):
   * answers the limit and the ids of the imported items within it (null: no limit).
   */
  async function withinLimit(userId: string) {
    const tier = (await directory.userTier(userId)) ?? "free";
    const limit = postLimit(tier);
    if (limit === null) return { limit, tier, allowed: null };
    const posts = await directory.newestPostTimes(userId, limit);
    const imported = await repo.countedImportTimes(userId, limit);
    const ranked = [
      ...posts.map((at) => ({ id: null as string | null, at: at.getTime() })),
      ...imported.map((r) => ({ id: r.id as string | null, at: r.at.getTime() })),
    ].sort((a, b) => b.at - a.at);
    const allowed = new Set(
      ranked
        .slice(0, limit)
        .map((r) => r.id)
        .filter((id): id is string => id !== null),
    );
    return { limit, tier, allowed };
  }

  return {
    /** The account, when it is the user's (404 otherwise): checked before a plan's body is read. */
    ownAccount,

    /** Reads the export's JSON, records its items once and answers the preview and what is left. */
    async plan(userId: string, accountId: string, body: ImportPlanRequest): Promise<ImportPlan> {
      const account = await ownAccount(userId, accountId);
      const parsed = await parse(account.username, body);
      const { fromApi, skip } = await matchKnown(accountId, parsed.items);
      const now = clock.now();
      const wanted = parsed.items.filter((it) => !skip.has(it));
      let rows = await repo.recordItems(
        userId,
        accountId,
        wanted.map((it) => toRecord(it, fromApi.has(it))),
        now,
      );
      // Posts the API brought in since an earlier import of this export.
      const apiKeys = new Set(wanted.filter((it) => fromApi.has(it)).map(exportItemKey));
      const knownNow = rows.filter(
        (r) =>
          r.item.status !== "completed" &&
          r.item.status !== "known" &&
          apiKeys.has(r.item.item_key),
      );
      const knownIds = new Set(knownNow.map((r) => r.item.id));
      if (knownNow.length > 0) {
        await repo.setStatuses(
          knownNow.map((r) => r.item.id),
          "known",
          now,
        );
      }
      // The post limit, judged again on every plan (a plan change moves it).
      const lim = await withinLimit(userId);
      const open = rows.filter(
        (r) =>
          (r.item.status === "pending" || r.item.status === "over_limit") &&
          !knownIds.has(r.item.id),
      );
      if (lim.allowed) {
        const over = open.filter((r) => !lim.allowed.has(r.item.id)).map((r) => r.item.id);
        const back = open.filter((r) => lim.allowed.has(r.item.id)).map((r) => r.item.id);
        await repo.setStatuses(over, "over_limit", now);
        await repo.setStatuses(back, "pending", now);
      } else {
        await repo.setStatuses(
          open.map((r) => r.item.id),
          "pending",
          now,
        );
      }
      rows = await repo.itemsOf(accountId, wanted.map(exportItemKey));
      const items = rows
        .map(({ item, files }) => ({
          id: item.id,
          kind: item.kind,
          taken_at: new Date(item.taken_at).toISOString(),
          caption: item.caption,
          status: item.status,
          files: files.map((f) => ({
            key: f.file_key,
            uri: f.uri,
            name: f.name,
            media_type: f.media_type,
            done: f.drive_file_id !== null,
          })),
        }))
        .sort((a, b) => b.taken_at.localeCompare(a.taken_at));
      const words = importSummary({
        skipped: parsed.items.filter((it) => skip.has(it)),
        items,
        limit: lim.limit,
        tierLabel: tierLabel(lim.tier),
      });
      const times = parsed.items.map((i) => i.taken_at).sort();
      return {
        account_id: account.id,
        username: account.username,
        layout: parsed.layout,
        first_at: times[0] ?? null,
        last_at: times[times.length - 1] ?? null,
        ...words,
        items,
      };
    },

    /**
     * Streams one media file of an item from `body` (the browser's request) into Drive; when
     * it was the item's last file, writes the item's sidecar. A file already in Drive answers
     * at once, without reading the body.
     */
    async putFile(
      userId: string,
      itemId: string,
      fileKey: string,
      body: Readable,
      contentLength: number | null,
    ): Promise<ImportFileResult> {
      const row = await repo.findItem(userId, itemId);
      if (!row) throw new AppError("not_found", messages.itemNotFound);
      // The account's handle names the Drive folder; the connections area owns it.
      const account = await directory.accountWithOwner(row.account_id);
      if (!account || account.user_id !== userId) {
        throw new AppError("not_found", messages.itemNotFound);
      }
      const item = { ...row, username: account.username };
      const files = await repo.itemFiles(itemId);
      const file = files.find((f) => f.file_key === fileKey);
      if (!file) throw new AppError("not_found", messages.fileNotFound);
      if (file.drive_file_id) {
        return done(item, fileKey, file.drive_file_id, await finishItem(userId, item));
      }
      if (item.status === "known") throw new AppError("conflict", messages.known);
      if (item.status === "over_limit") {
        const tier = (await directory.userTier(userId)) ?? "free";
        throw new AppError("conflict", messages.overLimit(postLimit(tier) ?? 0, tierLabel(tier)));
      }
      if (contentLength === null) throw new AppError("invalid", messages.noLength);
      const google = await directory.findGoogleConnection(userId);
      if (!google) throw new AppError("conflict", m.googleNotConnected);
      if (google.status === "needs_reconnection")
        throw new AppError("conflict", reconnectWords.google);

      const now = clock.now();
      const claimed = await repo.claimFile(
        itemId,
        fileKey,
        now,
        new Date(now.getTime() + FILE_LEASE_MS),
      );
      if (!claimed) {
        // Another request holds it, or finished it since this one read it: then it is done.
        const now = (await repo.itemFiles(itemId)).find((f) => f.file_key === fileKey);
        if (now?.drive_file_id) {
          return done(item, fileKey, now.drive_file_id, await finishItem(userId, item));
        }
        throw new AppError("conflict", messages.busy);
      }
      const renew = setInterval(() => {
        repo
          .renewFile(itemId, fileKey, new Date(clock.now().getTime() + FILE_LEASE_MS))
          .catch(() => {});
      }, FILE_LEASE_MS / 3);
      renew.unref();
      try {
        // The claimed row as it is now (an upload session or an earlier start recorded since
        // this request read it); started_at only when a request before this one set it.
        const { started_before, ...row } = claimed;
        const fresh = { ...row, started_at: started_before };
        const fileId = await putMedia(userId, google.google_sub, item, fresh, body, contentLength);
        return done(item, fileKey, fileId, await finishItem(userId, item));
      } catch (err) {
        throw asAppError(err);
      } finally {
        clearInterval(renew);
        await repo.releaseFile(itemId, fileKey).catch(() => {});
      }
    },
  };

  function done(
    item: ImportItemRow,
    key: string,
    fileId: string,
    completed: boolean,
  ): ImportFileResult {
    return { item_id: item.id, key, drive_file_id: fileId, item_completed: completed };
  }

  function ledgerFor(itemId: string): Ledger {
    const save = (key: string, fields: Partial<ImportFileRow>) =>
      repo.saveFile(itemId, key, fields, clock.now());
    return {
      rememberSession: (i: BackupItem, uri: string, total: number | null) =>
        save(i.key, { upload_session_uri: deps.sessions.seal(uri), upload_total: total }),
      forgetSession: (i: BackupItem) =>
        save(i.key, { upload_session_uri: null, upload_total: null }),
      openSession: (row: { upload_session_uri: string | null }) =>
        row.upload_session_uri ? deps.sessions.open(row.upload_session_uri) : null,
      async record(i: BackupItem, f, found): Promise<ItemResult> {
        await save(i.key, {
          drive_file_id: f.id,
          size_bytes: f.size ?? 0,
          md5: f.md5Checksum,
          web_url: f.webViewLink,
          upload_session_uri: null,
          upload_total: null,
        });
        return {
          fileId: f.id,
          size: f.size ?? 0,
          md5: f.md5Checksum,
          webUrl: f.webViewLink,
          found,
        };
      },
    } as Ledger;
  }

  function metaOf(
    item: ImportItemRow & { username: string },
    file: { name: string; file_key: string; media_type: "IMAGE" | "VIDEO" },
    parent: string,
    mimeType: string,
  ): DriveFileMetadata {
    const time = new Date(item.taken_at).toISOString();
    return {
      name: file.name,
      mimeType,
      parents: [parent],
      createdTime: time,
      modifiedTime: time,
      ...(item.caption ? { description: item.caption.slice(0, 30_000) } : {}),
      appProperties: {
        [ITEM_KEY]: file.file_key,
        [POST_KEY]: item.item_key,
        [SOURCE_KEY]: SOURCE_VALUE,
      },
    };
  }

  async function putMedia(
    userId: string,
    googleSub: string,
    item: ImportItemRow & { username: string },
    file: ImportFileRow,
    body: Readable,
    total: number,
  ): Promise<string> {
    const call = driveCallerFor(deps.connections, settings, userId);
    const folder = await folders.ensure(
      call,
      userId,
      googleSub,
      importFolderPath(item.username, item.kind, new Date(item.taken_at)),
    );
    const ledger = ledgerFor(item.id);
    const backupItem: BackupItem = {
      key: file.file_key,
      kind: "media",
      mediaId: file.file_key,
      mediaType: file.media_type,
      url: null,
      name: file.name,
      index: null,
    };
    const meta = metaOf(item, file, folder.id, importMime(file.uri, file.media_type));
    let resume: OpenSession | null = null;
    const sealed = file.upload_session_uri;
    if (sealed) {
      const uri = deps.sessions.open(sealed);
      const sessionTotal = file.upload_total === null ? null : Number(file.upload_total);
      const st = await call((t) => drive.status(t, uri, sessionTotal));
      if (st !== "gone" && st.done) {
        body.resume();
        return (await ledger.record(backupItem, st.file, false)).fileId;
      }
      if (st !== "gone" && sessionTotal === total) resume = { uri, total, received: st.received };
      else await ledger.forgetSession(backupItem);
    } else if (file.started_at) {
      // An earlier request began this file and may have created it before recording it.
      const found = await call((t) => drive.findByAppProperty(t, ITEM_KEY, file.file_key));
      const mine = found.find((f) => f.appProperties[SOURCE_KEY] === SOURCE_VALUE);
      if (mine) {
        body.resume();
        return (await ledger.record(backupItem, mine, true)).fileId;
      }
    }
    let broke = false;
    body.on("aborted", () => {
      broke = true;
    });
    const download = new Response(
      toWeb(body, () => (broke = true)),
      {
        headers: { "content-length": String(total) },
      },
    );
    const run = (from: OpenSession | null) =>
      upload({
        call,
        ledger,
        item: backupItem,
        meta,
        resume: from,
        download,
        reopen: async () => {
          // A request body is read once: the browser sends the file again, and the recorded
          // session continues from what Drive holds.
          throw new BodyBrokeOff();
        },
        checkLease: () => {
          if (broke) throw new BodyBrokeOff();
        },
      });
    try {
      return (await run(resume)).fileId;
    } catch (err) {
      if (broke) throw new BodyBrokeOff();
      if (err instanceof SessionGoneError) {
        await ledger.forgetSession(backupItem);
        throw new BodyBrokeOff();
      }
      throw err;
    }
  }

  /** When every file of the item is in Drive: its sidecar (once), and the item completed. */
  async function finishItem(
    userId: string,
    item: ImportItemRow & { username: string },
  ): Promise<boolean> {
    if (item.status === "completed") return true;
    const files = await repo.itemFiles(item.id);
    if (files.some((f) => !f.drive_file_id)) return false;
    const google = await directory.findGoogleConnection(userId);
    if (!google) throw new AppError("conflict", m.googleNotConnected);
    const call = driveCallerFor(deps.connections, settings, userId);
    const folder = await folders.ensure(
      call,
      userId,
      google.google_sub,
      importFolderPath(item.username, item.kind, new Date(item.taken_at)),
    );
    const metaKey = `${item.item_key}_meta`;
    const existing = await call((t) => drive.findByAppProperty(t, ITEM_KEY, metaKey));
    let sidecarId = existing.find((f) => f.appProperties[SOURCE_KEY] === SOURCE_VALUE)?.id;
    if (!sidecarId) {
      const content = Buffer.from(
        JSON.stringify(importSidecar(item, item.username, files), null, 2),
      );
      const created = await call((t) =>
        drive.multipart(
          t,
          metaOf(
            item,
            { name: importMetaName(item, files), file_key: metaKey, media_type: "IMAGE" },
            folder.id,
            "application/json",
          ),
          content,
          "application/json",
        ),
      );
      await keepIfIntact(call, drive, created, createHash("md5").update(content).digest("hex"));
      sidecarId = created.id;
    }
    // Before the item is marked completed: a crash in between leaves it to finish again.
    await directory.recordImportedPost(importedPost(item, files));
    const mine = await repo.completeItem(item.id, sidecarId, clock.now());
    if (!mine) {
      // Another request finished the item at the same moment: keep the sidecar it recorded.
      const again = await repo.findItem(userId, item.id);
      if (again?.sidecar_file_id && again.sidecar_file_id !== sidecarId) {
        const drop = sidecarId;
        await call((t) => drive.remove(t, drop)).catch(() => {});
      }
    }
    return true;
  }
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

function asAppError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof BodyBrokeOff) return new AppError("bad_request", messages.brokeOff);
  if (err instanceof GoogleRevokedError) return new AppError("conflict", reconnectWords.google);
  if (err instanceof ProviderError) {
    if (err.provider === "instagram") return new AppError("bad_request", messages.brokeOff);
    return new AppError("upstream", messages.drive(err.message));
  }
  return err;
}

export type ImportService = ReturnType<typeof createImportService>;
