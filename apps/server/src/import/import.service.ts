import type { Readable } from "node:stream";
import type { DestinationKind } from "@keepsake/contracts";
import type { ImportFileResult, ImportPlan, ImportPlanRequest } from "@keepsake/contracts/import";
import {
  type ExportItem,
  ExportRefusedError,
  readInstagramExport,
} from "@keepsake/contracts/instagram-export";
import { postLimit, tierLabel } from "../billing/index.ts";
import type { DestinationState } from "../connections/index.ts";
import type { Destinations, SessionSeal } from "../destinations/index.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { exportFileKey, exportItemKey, importFileName, nameId } from "./import.naming.ts";
import type { ImportRepository, NewImportItem } from "./import.repository.ts";
import { importSummary } from "./import.summary.ts";
import { asAppError, createImportWriter, recordedIn } from "./import.writer.ts";
import type { ImportedPost } from "./imported-post.ts";
import type { ImportItemRow } from "./tables.ts";

/** What the import area reads of other areas: the account, the plan, Drive, known posts. */
export interface ImportDirectory {
  accountWithOwner(accountId: string): Promise<
    | {
        id: string;
        user_id: string;
        username: string;
        destination: DestinationKind;
      }
    | undefined
  >;
  userTier(userId: string): Promise<string | undefined>;
  /** Whether the item's destination can be written to (connections/). */
  destinationState(userId: string, kind: DestinationKind): Promise<DestinationState>;
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
  /** Where imported files go: each item's destination, through destinations/. */
  destinations: Pick<Destinations, "of">;
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
} as const;

const normCaption = (c: string | null) => (c ?? "").trim().normalize("NFC");

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
  const { repo, directory, clock } = deps;
  const { putMedia, finishItem } = createImportWriter({
    repo,
    destinations: deps.destinations,
    sessions: deps.sessions,
    clock,
    destinationState: directory.destinationState,
    recordImportedPost: directory.recordImportedPost,
  });

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
      // A file counts as done in the account of its item's destination connected now.
      const accountKeys = new Map<DestinationKind, string>();
      for (const kind of new Set(rows.map((r) => r.item.destination))) {
        accountKeys.set(kind, (await directory.destinationState(userId, kind)).accountKey);
      }
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
            done:
              f.drive_file_id !== null &&
              recordedIn(f, accountKeys.get(item.destination) || f.owner),
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
        destination: account.destination,
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
      const target = await directory.destinationState(userId, item.destination);
      // (Not connected: what is recorded counts, and the upload below says to connect.)
      const here = target.accountKey || file.owner;
      if (file.drive_file_id && recordedIn(file, here)) {
        return done(item, fileKey, file.drive_file_id, await finishItem(userId, item));
      }
      if (item.status === "known") throw new AppError("conflict", messages.known);
      if (item.status === "over_limit") {
        const tier = (await directory.userTier(userId)) ?? "free";
        throw new AppError("conflict", messages.overLimit(postLimit(tier) ?? 0, tierLabel(tier)));
      }
      if (contentLength === null) throw new AppError("invalid", messages.noLength);
      if (target.problem !== null) throw new AppError("conflict", target.problem);

      const now = clock.now();
      const claimed = await repo.claimFile(
        itemId,
        fileKey,
        now,
        new Date(now.getTime() + FILE_LEASE_MS),
        target.accountKey,
      );
      if (!claimed) {
        // Another request holds it, or finished it since this one read it: then it is done.
        const now = (await repo.itemFiles(itemId)).find((f) => f.file_key === fileKey);
        if (now?.drive_file_id && recordedIn(now, here)) {
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
        const fileId = await putMedia(userId, item, fresh, body, contentLength);
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
}

export type ImportService = ReturnType<typeof createImportService>;
