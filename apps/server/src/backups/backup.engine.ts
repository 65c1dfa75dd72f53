import { randomUUID } from "node:crypto";
import type { DestinationKind } from "@keepsake/contracts";
import { type ConnectionTokens, destinationReconnectWords } from "../connections/index.ts";
import {
  classifyDestinationError,
  createLedger,
  type Destination,
  type DestinationSession,
  type FileSpec,
  type ItemResult,
  type Ledger,
  type OpenUpload,
  recordedResult,
  type SessionSeal,
  type StoredFile,
  UploadSessionGoneError,
} from "../destinations/index.ts";
import type { Clock } from "../lib/clock.ts";
import { reconnectWords } from "../providers/failure-words.ts";
import type { MediaClient } from "../providers/instagram/media.client.ts";
import type {
  AttemptInfo,
  EngineLog,
  EngineSettings,
  GraphPacer,
  SyncDirectory,
} from "../sync/index.ts";
import type { PostRow } from "../sync/tables.ts";
import type { BackupsRepositories } from "./backups.repositories.ts";
import { postsInProgress } from "./in-progress.ts";
import { createMediaSource, MediaWithheldError, type PostRef } from "./media-source.ts";
import type { BackupItem } from "./naming.ts";
import { type BackupOutcome, type FailedBackupEvent, outcomeRecorder } from "./outcome.ts";
import { notConnectedReason, revokedReason } from "./outcome-reasons.ts";
import { planPost } from "./plan.ts";
import { mayAlreadyBeInDrive } from "./recovery.ts";
import { type PlacedFile, sidecarBody, type WithheldItem, writeSidecar } from "./sidecar.ts";
import type { BackupFileRow, BackupRow } from "./tables.ts";

export type { BackupOutcome } from "./outcome.ts";

export interface BackupEngineDeps {
  repos: Pick<BackupsRepositories, "posts" | "backups" | "runs">;
  directory: Pick<SyncDirectory, "accountWithOwner" | "destinationState">;
  connections: ConnectionTokens;
  media: MediaClient;
  /** Where the files go: each account's destination (Google Drive unless chosen otherwise). */
  destinations: { of(kind: DestinationKind): Destination };
  pacer: GraphPacer;
  clock: Clock;
  settings: EngineSettings;
  sessions: SessionSeal;
  /** What the archive area adds to a post's sidecar (its metrics and whether it is on Instagram). */
  sidecarFields?: (accountId: string, instagramId: string) => Promise<Record<string, unknown>>;
  log?: EngineLog;
  /** Told of every backup that ends failed (alerts); must not throw. */
  onFailed?: (failed: FailedBackupEvent) => Promise<void>;
}

/** The account a post belongs to, as a backup needs it. */
interface Owner {
  id: string;
  user_id: string;
  username: string;
  connected_at: Date;
}

/** One backup attempt of one post, once its claim and checks passed. */
interface Attempt {
  backup: BackupRow;
  post: PostRow;
  account: Owner;
  /** The destination connection folders are kept under (Drive: the Google account). */
  accountKey: string;
  destination: DestinationSession;
  checkLease: () => void;
  /** Aborted when the worker shuts down: requests in flight break off, retries end. */
  signal?: AbortSignal;
}

/**
 * Backs up one post into the user's Drive, exactly once: every file carries
 * `appProperties.keepsakeMediaId` and its metadata from the request that creates it, and its
 * Drive id is recorded the moment it exists; an open resumable session is recorded before the
 * first byte. A retry (in any worker) resumes that session, or looks in Drive by appProperties
 * for what an attempt that died before recording left, instead of uploading again.
 */
export function createBackupEngine(deps: BackupEngineDeps) {
  const { repos, directory, clock, settings: s } = deps;
  const source = createMediaSource({ ...deps, repo: repos.posts, settings: s });
  const later = (ms: number) => new Date(clock.now().getTime() + ms);
  const shared = postsInProgress(s.transferLanes);

  async function run(postId: string, attempt: AttemptInfo): Promise<BackupOutcome> {
    const lease = randomUUID();
    const backup = await repos.backups.claimBackup(postId, lease, clock.now(), later(s.leaseMs));
    if (!backup) {
      // Held by another worker: if that worker died, its lease runs out and a retry takes over.
      const current = await repos.backups.backupStatus(postId);
      if (current === "processing") {
        return { outcome: "retry", message: "Another worker is backing up this post" };
      }
      return { outcome: "skipped" };
    }
    let leaseLost = false;
    const timer = setInterval(() => {
      repos.backups
        .renewLease(backup.id, lease, later(s.leaseMs))
        .then((ok) => {
          if (!ok) leaseLost = true;
        })
        .catch(() => {});
    }, s.leaseRenewMs);
    timer.unref();
    const checkLease = () => {
      if (leaseLost) throw new Error("The backup was taken over by another worker");
      attempt.signal?.throwIfAborted();
    };
    const outcome = outcomeRecorder({
      ...deps,
      backups: repos.backups,
      backup,
      lease,
    });

    try {
      // The post, its account and its destination are read at once (the claim says which).
      const [post, account, target] = await Promise.all([
        repos.posts.findPost(postId),
        directory.accountWithOwner(backup.account_id),
        // The backup goes where the account's backups go now (claimBackup recorded it).
        directory.destinationState(backup.user_id, backup.destination),
      ]);
      if (!post || !account)
        return await outcome.fail("The post or its account no longer exists.", false, "gone");
      if (account.status === "needs_reconnection") {
        return await outcome.fail(
          reconnectWords.instagram(account.username),
          true,
          "instagram_revoked",
        );
      }
      if (!target.connected) {
        return await outcome.fail(target.problem ?? "", true, notConnectedReason(target.kind));
      }
      if (target.needsReconnection) {
        const words = destinationReconnectWords(target.kind);
        return await outcome.fail(words, true, revokedReason(target.kind));
      }
      const { files, withheld } = await backupPost({
        backup,
        post,
        account,
        accountKey: target.accountKey,
        destination: deps.destinations.of(target.kind).open(post.user_id, attempt.signal),
        checkLease,
        ...(attempt.signal ? { signal: attempt.signal } : {}),
      });
      checkLease();
      return await outcome.completed(files, withheld, target.accountKey, post);
    } catch (err) {
      if (attempt.signal?.aborted) {
        // The worker is shutting down: what exists is recorded (file ids, the open session), so
        // give up the claim at once and let the job's next run, in another worker, resume.
        clearInterval(timer);
        await repos.backups.releaseLease(backup.id, lease, clock.now());
        throw err;
      }
      return await outcome.failure(err, attempt);
    } finally {
      clearInterval(timer);
    }
  }

  /**
   * Puts every item of the post in Drive, then the sidecar; answers what is there, and how many
   * media items Instagram withholds (the sidecar names them; the rest is backed up).
   */
  async function backupPost(
    a: Attempt,
  ): Promise<{ files: (ItemResult & PlacedFile)[]; withheld: number }> {
    const { backup, post, account, accountKey, destination } = a;
    const ledger = backupLedger(backup.id, backup.destination, accountKey);
    const { path, items } = planPost(post, account.username);
    // Before any byte is sent, the post is marked as started (`mayAlreadyBeInDrive` reads the
    // mark as it was before this attempt), its folder found and what earlier attempts recorded
    // read: three round trips at once.
    const [found, rows] = await Promise.all([
      shared.ensureFolder(destination, [backup.destination, post.user_id], accountKey, path),
      repos.backups.backupFiles(backup.id, backup.destination, accountKey),
      post.backup_started_at === null
        ? repos.posts.markPostBackupStarted(post.id, clock.now())
        : undefined,
    ]);
    let folder = found;
    const recorded = new Map(rows.map((f) => [f.item_key, f]));
    // One search for the whole post finds what an earlier attempt (or installation) put in
    // Drive without a record — only when there can be such a thing.
    const unrecorded = items.some(({ item }) => {
      const r = recorded.get(item.key);
      return !r?.drive_file_id && !r?.upload_session_uri;
    });
    const look =
      unrecorded &&
      mayAlreadyBeInDrive({
        attempts: backup.attempts,
        backupStartedBefore: post.backup_started_at,
        postedAt: new Date(post.posted_at),
        accountConnectedAt: new Date(account.connected_at),
        folder,
      });
    const existing = look ? await destination.findPostFiles(post.instagram_id) : new Map();
    const ref: PostRef = { current: post };
    const files: (ItemResult & PlacedFile)[] = [];
    const withheld: WithheldItem[] = [];

    for (const { item, spec } of items) {
      a.checkLease();
      const put = () =>
        putItem(a, ledger, ref, files, withheld, {
          item,
          spec: { ...spec, folderId: folder.id },
          row: recorded.get(item.key),
          existing: existing.get(item.key),
        });
      let result: ItemResult;
      try {
        result = await put();
      } catch (err) {
        if (err instanceof MediaWithheldError) {
          withheld.push({ kind: item.kind, name: item.name });
          continue;
        }
        // The folder was deleted in Drive since we recorded it: make it again, once.
        if (classifyDestinationError(err)?.kind !== "not_found") throw err;
        await destination.forgetFolder(accountKey, path);
        folder = await destination.ensureFolder(accountKey, path);
        result = await put();
      }
      files.push({ ...result, kind: item.kind, name: item.name });
    }
    return { files, withheld: withheld.filter((w) => w.kind === "media").length };
  }

  /** One item: as recorded, resumed, found in Drive, or streamed from the CDN. */
  async function putItem(
    a: Attempt,
    ledger: Ledger,
    ref: PostRef,
    placed: PlacedFile[],
    withheld: WithheldItem[],
    it: {
      item: BackupItem;
      spec: FileSpec;
      row: BackupFileRow | undefined;
      existing: StoredFile | undefined;
    },
  ): Promise<ItemResult> {
    const { item, spec, row, existing } = it;
    if (row?.drive_file_id) return recordedResult(row);
    if (item.kind === "meta") {
      if (existing) return ledger.record(item, existing, true);
      return writeSidecar({
        destination: a.destination,
        ledger,
        item,
        spec,
        post: ref.current,
        username: a.account.username,
        files: placed,
        withheld,
        ...(deps.sidecarFields
          ? { extra: await deps.sidecarFields(ref.current.account_id, ref.current.instagram_id) }
          : {}),
      });
    }
    let resume: OpenUpload | null = null;
    const recordedUri = ledger.openSession(row ?? { upload_session_uri: null });
    if (row && recordedUri) {
      // Where the session an earlier attempt recorded stands: finished, open, or gone.
      const total = row.upload_total === null ? null : Number(row.upload_total);
      const st = await a.destination.uploadStatus(recordedUri, total);
      if (st && "done" in st) return ledger.record(item, st.done, false);
      if (st) resume = st.open;
      else await ledger.forgetSession(item);
    }
    if (!resume && existing) return ledger.record(item, existing, true);
    // The download and its upload hold a lane; the record is written outside it.
    const stream = async (from: OpenUpload | null) =>
      ledger.record(
        item,
        await shared.inLane(async () => {
          // The claim may have been lost, or the worker told to stop, while this waited.
          a.checkLease();
          return a.destination.put(
            spec,
            {
              download: await source.open(item, a.account.id, ref, a.signal),
              reopen: () => source.open(item, a.account.id, ref, a.signal),
            },
            ledger.recorder(item),
            {
              resume: from,
              checkLease: a.checkLease,
              ...(a.signal ? { signal: a.signal } : {}),
            },
          );
        }),
        false,
      );
    try {
      return await stream(resume);
    } catch (err) {
      if (!(err instanceof UploadSessionGoneError)) throw err;
      await ledger.forgetSession(item);
      return stream(null);
    }
  }

  /**
   * Writes a backed-up post's sidecar again, in place (same Drive file id), with what the
   * archive knows now. Nothing happens before the post's sidecar is in Drive (the backup writes
   * it then) or without a working Drive connection.
   */
  async function refreshSidecar(
    accountId: string,
    instagramId: string,
  ): Promise<"rewritten" | "not_backed_up" | "no_drive"> {
    const post = await repos.posts.findAccountPost(accountId, instagramId);
    const account = post ? await directory.accountWithOwner(post.account_id) : undefined;
    if (!post || !account) return "not_backed_up";
    const backup = await repos.backups.findBackupByPost(post.user_id, post.id);
    if (!backup || (backup.status !== "completed" && backup.status !== "unavailable"))
      return "not_backed_up";
    const target = await directory.destinationState(post.user_id, backup.destination);
    if (target.problem !== null) return "no_drive";
    // Completed in another account of the destination: it is being copied into this one.
    if (backup.owner !== target.accountKey) return "not_backed_up";
    const recorded = new Map(
      (await repos.backups.backupFiles(backup.id, backup.destination, backup.owner)).map((f) => [
        f.item_key,
        f,
      ]),
    );
    const files: PlacedFile[] = [];
    const withheld: WithheldItem[] = [];
    let sidecarId: string | null = null;
    for (const { item } of planPost(post, account.username).items) {
      const id = recorded.get(item.key)?.drive_file_id ?? null;
      if (item.kind === "meta") sidecarId = id;
      else if (id) files.push({ kind: item.kind, name: item.name, fileId: id });
      else withheld.push({ kind: item.kind, name: item.name });
    }
    if (!sidecarId) return "not_backed_up";
    const fileId = sidecarId;
    const extra = deps.sidecarFields ? await deps.sidecarFields(accountId, instagramId) : {};
    const body = sidecarBody(post, account.username, files, withheld, extra);
    await deps.destinations
      .of(backup.destination)
      .open(post.user_id)
      .replace(fileId, body, "application/json");
    return "rewritten";
  }

  /** The backup_files rows of one backup: what each item left in the destination's account. */
  function backupLedger(backupId: string, destination: DestinationKind, owner: string): Ledger {
    return createLedger({
      save: (item, fields, now) =>
        repos.backups.saveBackupFile(
          {
            backup_id: backupId,
            destination,
            owner,
            item_key: item.key,
            name: item.name,
            ...fields,
          },
          now,
        ),
      clock,
      sessions: deps.sessions,
    });
  }

  return { run, refreshSidecar };
}

export type BackupEngine = ReturnType<typeof createBackupEngine>;
