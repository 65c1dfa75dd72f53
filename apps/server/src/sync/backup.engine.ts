import { createHash, randomUUID } from "node:crypto";
import { syncMessages as m } from "@keepsake/contracts";
import type { BackupFileRow, BackupRow, PostChild, PostRow } from "../db/sync-tables.ts";
import type { Clock } from "../lib/clock.ts";
import { HttpError } from "../lib/errors.ts";
import {
  type DriveClient,
  type DriveFile,
  type DriveFileMetadata,
  RESUMABLE_QUANTUM,
  type UploadProgress,
} from "../providers/google/drive.client.ts";
import { isRetryable, retryAfterOf } from "../providers/http-retry.ts";
import {
  type GraphHost,
  type MediaClient,
  MediaUrlExpiredError,
} from "../providers/instagram/media.client.ts";
import { isInstagramTokenInvalid, ProviderError } from "../providers/provider-error.ts";
import {
  backoffDelay,
  DeferError,
  type EngineSettings,
  type GraphPacer,
  withBackoff,
} from "./backoff.ts";
import { type BackupItem, backupItems, folderPath, mimeOf, sidecar } from "./naming.ts";
import { toPostChild } from "./sync.engine.ts";
import type { SyncRepository } from "./sync.repository.ts";

/** What the backup engine needs from Connections. */
export interface ConnectionTokens {
  googleAccessToken(userId: string, options?: { forceRefresh?: boolean }): Promise<string>;
  instagramAccessToken(accountId: string): Promise<{
    token: string;
    connectedVia: GraphHost;
    instagramUserId: string;
  }>;
  markInstagramNeedsReconnection(accountId: string, reason: string): Promise<void>;
  /** The user's accounts, profiles (media counts) older than `maxAgeMs` read again first. */
  refreshStaleProfiles(userId: string, maxAgeMs: number): Promise<{ media_count: number }[]>;
}

export interface BackupEngineDeps {
  repo: SyncRepository;
  connections: ConnectionTokens;
  media: MediaClient;
  drive: DriveClient;
  pacer: GraphPacer;
  clock: Clock;
  settings: EngineSettings;
  /** Seals resumable session URIs for storage (anyone holding one can write to the upload). */
  sessions: { seal(uri: string): string; open(sealed: string): string };
  log?: { warn(obj: object, msg: string): void; info?(obj: object, msg: string): void };
}

export type BackupOutcome =
  | { outcome: "completed"; duplicate: boolean }
  | { outcome: "failed"; message: string }
  | { outcome: "retry"; message: string }
  | { outcome: "deferred"; delayMs: number }
  | { outcome: "skipped" };

/** The job's place among its attempts, to know when a failure is final. */
export interface AttemptInfo {
  retryCount: number;
  retryLimit: number;
}

/** Google refused the grant for good: every backup of the user stops until they reconnect. */
class GoogleRevokedError extends Error {}
/** Instagram does not give out this media (copyrighted audio and the like). */
class MediaWithheldError extends Error {}
/** The resumable session is gone (expired or unknown): the item starts over. */
class SessionGoneError extends Error {}

interface ItemResult {
  fileId: string;
  size: number;
  md5: string | null;
  webUrl: string | null;
  /** Found in Drive by its appProperties rather than uploaded or resumed by this attempt. */
  found: boolean;
}

const KEY = "keepsakeMediaId";
const POST_KEY = "keepsakePostId";
const FOLDER_KEY = "keepsakeFolder";

/** A readable stream of the CDN body as Uint8Array pieces. */
async function* pieces(res: Response): AsyncGenerator<Uint8Array> {
  if (!res.body) return;
  const reader = res.body.getReader();
  try {
    while (true) {
      let r: Awaited<ReturnType<typeof reader.read>>;
      try {
        r = await reader.read();
      } catch {
        throw new ProviderError(
          "instagram",
          "network",
          "The download from the Instagram CDN broke off",
        );
      }
      if (r.done) return;
      yield r.value;
    }
  } finally {
    reader.releaseLock();
    await res.body.cancel().catch(() => {});
  }
}

/** Bytes kept until Drive acknowledges them; `start` is the stream offset of the first byte. */
class Pending {
  parts: Uint8Array[] = [];
  length = 0;
  push(p: Uint8Array) {
    if (p.length === 0) return;
    this.parts.push(p);
    this.length += p.length;
  }
  /** The first `n` bytes as one buffer, without removing them. */
  peek(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    for (const p of this.parts) {
      if (at >= n) break;
      const take = Math.min(p.length, n - at);
      out.set(p.subarray(0, take), at);
      at += take;
    }
    return out;
  }
  drop(n: number) {
    this.length -= n;
    while (n > 0 && this.parts.length > 0) {
      const p = this.parts[0] as Uint8Array;
      if (p.length <= n) {
        n -= p.length;
        this.parts.shift();
      } else {
        this.parts[0] = p.subarray(n);
        n = 0;
      }
    }
  }
}

/**
 * Backs up one post into the user's Drive, exactly once: every file is tagged with
 * `appProperties.keepsakeMediaId` and its Drive id recorded the moment it exists; an open
 * resumable session is recorded before the first byte, so a retry (in any worker) resumes it
 * or finds the finished file instead of uploading again.
 */
export function createBackupEngine(deps: BackupEngineDeps) {
  const { repo, connections, media, drive, pacer, clock, settings: s, sessions } = deps;
  const chunkBytes = Math.max(
    RESUMABLE_QUANTUM,
    Math.floor(s.chunkBytes / RESUMABLE_QUANTUM) * RESUMABLE_QUANTUM,
  );
  const later = (ms: number) => new Date(clock.now().getTime() + ms);

  /** Drive calls with backoff, and one token refresh when Google says the token is bad. */
  function driveCaller(userId: string) {
    let token: string | null = null;
    const fresh = async (forceRefresh: boolean) => {
      try {
        token = await connections.googleAccessToken(userId, { forceRefresh });
      } catch (err) {
        if (err instanceof HttpError) throw new GoogleRevokedError(err.message);
        throw err;
      }
      return token;
    };
    /** `retry: false` for calls whose caller retries itself (chunk uploads re-check Range). */
    return async <T>(
      fn: (token: string) => Promise<T>,
      options: { retry?: boolean } = {},
    ): Promise<T> => {
      const run = async () => fn(token ?? (await fresh(false)));
      const exec = () => (options.retry === false ? run() : withBackoff(run, s));
      try {
        return await exec();
      } catch (err) {
        if (err instanceof ProviderError && err.kind === "token_invalid") {
          await fresh(true);
          try {
            return await exec();
          } catch (again) {
            if (again instanceof ProviderError && again.kind === "token_invalid") {
              throw new GoogleRevokedError(m.googleReconnect);
            }
            throw again;
          }
        }
        throw err;
      }
    };
  }

  async function run(postId: string, attempt: AttemptInfo): Promise<BackupOutcome> {
    const lease = randomUUID();
    const claimed = await repo.claimBackup(postId, lease, clock.now(), later(s.leaseMs));
    if (!claimed) {
      // Held by another worker: if that worker died, its lease runs out and a retry takes over.
      const current = await repo.backupStatus(postId);
      if (current === "processing") {
        return { outcome: "retry", message: "Another worker is backing up this post" };
      }
      return { outcome: "skipped" };
    }
    const backup: BackupRow = claimed;
    let leaseLost = false;
    const timer = setInterval(() => {
      repo
        .renewLease(backup.id, lease, later(s.leaseMs))
        .then((ok) => {
          if (!ok) leaseLost = true;
        })
        .catch(() => {});
    }, s.leaseRenewMs);
    timer.unref();
    const checkLease = () => {
      if (leaseLost) throw new Error("The backup was taken over by another worker");
    };

    const finish = async (
      status: "completed" | "failed" | "pending",
      fields: Omit<Parameters<SyncRepository["finishBackup"]>[2], "status" | "now">,
    ) => {
      const done = await repo.finishBackup(backup.id, lease, {
        status,
        now: clock.now(),
        ...fields,
      });
      if (done && status !== "pending" && done.sync_job_id) {
        await repo.countBackupDone(done.sync_job_id, clock.now());
      }
      return done;
    };
    const fail = async (message: string, retryOnSync: boolean): Promise<BackupOutcome> => {
      await finish("failed", { error_message: message, retry_on_sync: retryOnSync });
      return { outcome: "failed", message };
    };

    try {
      const post = await repo.findPost(postId);
      const account = post ? await repo.accountWithOwner(post.account_id) : undefined;
      if (!post || !account) return await fail("The post or its account no longer exists.", false);
      if (account.status === "needs_reconnection") {
        return await fail(m.instagramReconnect(account.username), true);
      }
      const google = await repo.googleConnection(post.user_id);
      if (!google) return await fail(m.googleNotConnected, true);
      if (google.status === "needs_reconnection") return await fail(m.googleReconnect, true);

      const callDrive = driveCaller(post.user_id);
      const result = await backupPost(
        backup,
        post,
        account,
        google.google_sub,
        callDrive,
        checkLease,
      );
      checkLease();
      const mediaFiles = result.files.filter((f) => f.kind === "media");
      const first = mediaFiles[0];
      const duplicate = backup.attempts === 1 && mediaFiles.every((f) => f.found);
      await finish("completed", {
        error_message: duplicate ? m.skippedDuplicate : null,
        retry_on_sync: false,
        backup_size_bytes: result.files.reduce((n, f) => n + f.size, 0),
        md5: first?.md5 ?? null,
        google_drive_file_id: first?.fileId ?? null,
        google_drive_url: first?.webUrl ?? null,
      });
      return { outcome: "completed", duplicate };
    } catch (err) {
      return await failure(err);
    } finally {
      clearInterval(timer);
    }

    async function failure(err: unknown): Promise<BackupOutcome> {
      if (err instanceof DeferError) {
        await finish("pending", {
          error_message: "Waiting for the provider's rate limit to reset",
        });
        return { outcome: "deferred", delayMs: err.delayMs };
      }
      if (err instanceof MediaWithheldError) return fail(m.mediaWithheld, false);
      if (err instanceof GoogleRevokedError) return fail(m.googleReconnect, true);
      if (err instanceof ProviderError) {
        if (err.kind === "quota") return fail(m.driveFull, false);
        if (isInstagramTokenInvalid(err)) {
          const acc = await repo.accountWithOwner(backup.account_id);
          const message = m.instagramReconnect(acc?.username ?? "your account");
          await connections.markInstagramNeedsReconnection(backup.account_id, message);
          return fail(message, true);
        }
        if (err.kind === "permission") {
          return fail(
            err.provider === "google"
              ? "Keepsake is not allowed to write to your Google Drive. Reconnect Google Drive and allow access."
              : "Instagram did not allow Keepsake to read this post. Reconnect the account and allow access.",
            true,
          );
        }
      }
      const message = describe(err);
      const final = attempt.retryCount >= attempt.retryLimit;
      if (final)
        return fail(`Backup failed after ${attempt.retryCount + 1} attempts: ${message}`, true);
      await finish("pending", { error_message: `Retrying: ${message}` });
      deps.log?.warn({ postId, err: message }, "backup attempt failed; retrying");
      return { outcome: "retry", message };
    }
  }

  /** Uploads every item of the post, then the sidecar; answers what is in Drive. */
  async function backupPost(
    backup: BackupRow,
    post: PostRow,
    account: { id: string; username: string; user_id: string },
    googleSub: string,
    callDrive: ReturnType<typeof driveCaller>,
    checkLease: () => void,
  ) {
    const path = folderPath(account.username, new Date(post.posted_at));
    let folderId = await ensureFolders(account.user_id, googleSub, path, callDrive);
    const recorded = new Map((await repo.backupFiles(backup.id)).map((f) => [f.item_key, f]));
    const files: (ItemResult & { kind: "media" | "meta"; name: string })[] = [];
    let current = post;
    const items = backupItems(post);
    // One search for the whole post finds files a crashed attempt (or an earlier Keepsake)
    // already put in Drive, so nothing is uploaded twice.
    const unknown = items.some((i) => {
      const r = recorded.get(i.key);
      return !r?.drive_file_id && !r?.upload_session_uri;
    });
    const existing: Map<string, DriveFile> = unknown
      ? await findExisting(post.instagram_id, callDrive)
      : new Map();

    for (const item of items) {
      checkLease();
      const row = recorded.get(item.key);
      const meta: DriveFileMetadata = {
        name: item.name,
        mimeType: item.kind === "meta" ? "application/json" : mimeOf(item.mediaType),
        parents: [folderId],
        createdTime: new Date(post.posted_at).toISOString(),
        modifiedTime: new Date(post.posted_at).toISOString(),
        ...(post.caption ? { description: post.caption.slice(0, 30_000) } : {}),
        appProperties: { [KEY]: item.key, [POST_KEY]: post.instagram_id },
      };
      const upload = async () =>
        item.kind === "meta"
          ? uploadSidecar(
              backup.id,
              item,
              meta,
              current,
              account.username,
              files,
              row,
              existing.get(item.key),
              callDrive,
            )
          : uploadMedia(
              backup.id,
              item,
              meta,
              row,
              existing.get(item.key),
              callDrive,
              account,
              () => current,
              (p) => {
                current = p;
              },
              checkLease,
            );
      let result: ItemResult;
      try {
        result = await upload();
      } catch (err) {
        // The folder was deleted in Drive since we recorded it: make it again, once.
        if (
          !(err instanceof ProviderError && err.provider === "google" && err.kind === "not_found")
        )
          throw err;
        for (let i = 1; i <= path.length; i++) {
          await repo.forgetFolder(account.user_id, googleSub, path.slice(0, i).join("/"));
        }
        folderId = await ensureFolders(account.user_id, googleSub, path, callDrive);
        meta.parents = [folderId];
        result = await upload();
      }
      files.push({ ...result, kind: item.kind, name: item.name });
    }
    return { files };
  }

  /** Keepsake / @user / YYYY, each found by appProperties or created, recorded once. */
  async function ensureFolders(
    userId: string,
    googleSub: string,
    path: string[],
    callDrive: ReturnType<typeof driveCaller>,
  ): Promise<string> {
    let parent = "root";
    for (let i = 1; i <= path.length; i++) {
      const key = path.slice(0, i).join("/");
      let id = await repo.findFolder(userId, googleSub, key);
      if (!id) {
        const found = await callDrive((t) =>
          drive.findByAppProperty(t, FOLDER_KEY, key, [
            "mimeType = 'application/vnd.google-apps.folder'",
          ]),
        );
        const mine = found[0]?.id;
        const created = mine
          ? null
          : await callDrive((t) =>
              drive.createFolder(t, {
                name: path[i - 1] as string,
                parents: [parent],
                appProperties: { [FOLDER_KEY]: key },
              }),
            );
        const candidate = mine ?? (created as DriveFile).id;
        id = await repo.saveFolder(userId, googleSub, key, candidate);
        // Another worker created the same folder at the same moment: keep theirs.
        if (created && id !== created.id) {
          await callDrive((t) => drive.remove(t, created.id)).catch(() => {});
        }
      }
      parent = id;
    }
    return parent;
  }

  /**
   * The post's files already in Drive (found by appProperties), by item key; when an item has
   * several copies the oldest is kept and the others removed.
   */
  async function findExisting(
    instagramId: string,
    callDrive: ReturnType<typeof driveCaller>,
  ): Promise<Map<string, DriveFile>> {
    const found = await callDrive((t) => drive.findByAppProperty(t, POST_KEY, instagramId));
    const out = new Map<string, DriveFile>();
    for (const f of found) {
      const key = f.appProperties[KEY];
      if (!key) continue;
      if (out.has(key)) await callDrive((t) => drive.remove(t, f.id));
      else out.set(key, f);
    }
    return out;
  }

  /** Records an open resumable session, sealed: a worker that dies leaves it to resume. */
  async function rememberSession(
    backupId: string,
    item: BackupItem,
    uri: string,
    total: number | null,
  ) {
    await repo.saveBackupFile(
      {
        backup_id: backupId,
        item_key: item.key,
        name: item.name,
        upload_session_uri: sessions.seal(uri),
        upload_total: total,
      },
      clock.now(),
    );
  }

  /** Forgets an item's resumable session (it finished, vanished, or must start again). */
  async function forgetSession(backupId: string, item: BackupItem) {
    await repo.saveBackupFile(
      {
        backup_id: backupId,
        item_key: item.key,
        name: item.name,
        upload_session_uri: null,
        upload_total: null,
      },
      clock.now(),
    );
  }

  async function record(backupId: string, item: BackupItem, f: DriveFile, now = clock.now()) {
    await repo.saveBackupFile(
      {
        backup_id: backupId,
        item_key: item.key,
        name: item.name,
        drive_file_id: f.id,
        size_bytes: f.size ?? 0,
        md5: f.md5Checksum,
        web_url: f.webViewLink,
        upload_session_uri: null,
        upload_total: null,
      },
      now,
    );
    return { fileId: f.id, size: f.size ?? 0, md5: f.md5Checksum, webUrl: f.webViewLink };
  }

  async function uploadSidecar(
    backupId: string,
    item: BackupItem,
    meta: DriveFileMetadata,
    post: PostRow,
    username: string,
    files: { name: string; fileId: string; kind: string }[],
    row: BackupFileRow | undefined,
    existing: DriveFile | undefined,
    callDrive: ReturnType<typeof driveCaller>,
  ): Promise<ItemResult> {
    if (row?.drive_file_id) return fromRow(row);
    if (existing) return { ...(await record(backupId, item, existing)), found: true };
    const body = Buffer.from(
      JSON.stringify(
        sidecar(
          post,
          username,
          files.filter((f) => f.kind === "media").map((f) => ({ name: f.name, id: f.fileId })),
        ),
        null,
        2,
      ),
    );
    const file = await callDrive((t) => drive.multipart(t, meta, body, "application/json"));
    verifyMd5(file, createHash("md5").update(body).digest("hex"));
    return { ...(await record(backupId, item, file)), found: false };
  }

  const fromRow = (row: BackupFileRow): ItemResult => ({
    fileId: row.drive_file_id as string,
    size: Number(row.size_bytes ?? 0),
    md5: row.md5,
    webUrl: row.web_url,
    found: false,
  });

  function verifyMd5(file: DriveFile, expected: string) {
    if (file.md5Checksum && file.md5Checksum !== expected) {
      throw new ProviderError(
        "google",
        "transient",
        "The file in Drive does not match what was sent",
      );
    }
  }

  /** A fresh CDN URL for the item from Graph; stored on the post for the next attempt. */
  async function freshUrl(
    item: BackupItem,
    account: { id: string },
    getPost: () => PostRow,
    setPost: (p: PostRow) => void,
  ): Promise<string> {
    const ig = await connections.instagramAccessToken(account.id);
    const graph = <T>(fn: () => Promise<T>) => pacer.call(ig.instagramUserId, fn);
    const post = getPost();
    const now = clock.now();
    if (item.index !== null) {
      const c = await graph(() =>
        media.child({
          host: ig.connectedVia,
          token: ig.token,
          mediaId: item.mediaId,
          accountKey: ig.instagramUserId,
        }),
      );
      const children: PostChild[] = post.children.map((x) =>
        x.id === c.id ? { ...x, media_url: c.mediaUrl, thumbnail_url: c.thumbnailUrl } : x,
      );
      await repo.updatePostMedia(
        post.id,
        { media_url: post.media_url, thumbnail_url: post.thumbnail_url, children },
        now,
      );
      setPost({ ...post, children });
      if (!c.mediaUrl) throw new MediaWithheldError();
      return c.mediaUrl;
    }
    const fresh = await graph(() =>
      media.media({
        host: ig.connectedVia,
        token: ig.token,
        mediaId: post.instagram_id,
        accountKey: ig.instagramUserId,
      }),
    );
    const children: PostChild[] = fresh.children.length
      ? fresh.children.map(toPostChild)
      : post.children;
    await repo.updatePostMedia(
      post.id,
      { media_url: fresh.mediaUrl, thumbnail_url: fresh.thumbnailUrl, children },
      now,
    );
    setPost({ ...post, media_url: fresh.mediaUrl, thumbnail_url: fresh.thumbnailUrl, children });
    if (!fresh.mediaUrl) throw new MediaWithheldError();
    return fresh.mediaUrl;
  }

  /** Opens the CDN download, getting a fresh URL from Graph when the stored one is stale. */
  async function openDownload(
    item: BackupItem,
    account: { id: string },
    getPost: () => PostRow,
    setPost: (p: PostRow) => void,
  ): Promise<Response> {
    let url = item.url ?? (await freshUrl(item, account, getPost, setPost));
    for (let tries = 0; ; tries++) {
      try {
        return await withBackoff(() => media.download(url), s);
      } catch (err) {
        if (!(err instanceof MediaUrlExpiredError) || tries >= 1) {
          if (err instanceof MediaUrlExpiredError) {
            throw new ProviderError(
              "instagram",
              "transient",
              "The Instagram CDN refused a fresh media URL",
            );
          }
          throw err;
        }
        url = await freshUrl(item, account, getPost, setPost);
      }
    }
  }

  async function uploadMedia(
    backupId: string,
    item: BackupItem,
    meta: DriveFileMetadata,
    row: BackupFileRow | undefined,
    existing: DriveFile | undefined,
    callDrive: ReturnType<typeof driveCaller>,
    account: { id: string },
    getPost: () => PostRow,
    setPost: (p: PostRow) => void,
    checkLease: () => void,
  ): Promise<ItemResult> {
    if (row?.drive_file_id) return fromRow(row);
    let session: { uri: string; total: number | null; received: number } | null = null;
    if (row?.upload_session_uri) {
      const total = row.upload_total === null ? null : Number(row.upload_total);
      const uri = sessions.open(row.upload_session_uri);
      const st = await callDrive((t) => drive.status(t, uri, total));
      if (st !== "gone" && st.done)
        return { ...(await record(backupId, item, st.file)), found: false };
      if (st !== "gone") session = { uri, total, received: st.received };
      else await forgetSession(backupId, item);
    }
    if (!session && existing) return { ...(await record(backupId, item, existing)), found: true };
    try {
      return await stream(
        backupId,
        item,
        meta,
        session,
        callDrive,
        account,
        getPost,
        setPost,
        checkLease,
      );
    } catch (err) {
      if (!(err instanceof SessionGoneError)) throw err;
      await forgetSession(backupId, item);
      return stream(backupId, item, meta, null, callDrive, account, getPost, setPost, checkLease);
    }
  }

  /**
   * Streams the CDN body into Drive: small files in one multipart request, anything larger
   * through a resumable session in chunks of a multiple of 256 KiB. At most one chunk (plus
   * one network read) is held in memory; the md5 is computed on the way.
   */
  async function stream(
    backupId: string,
    item: BackupItem,
    meta: DriveFileMetadata,
    resume: { uri: string; total: number | null; received: number } | null,
    callDrive: ReturnType<typeof driveCaller>,
    account: { id: string },
    getPost: () => PostRow,
    setPost: (p: PostRow) => void,
    checkLease: () => void,
  ): Promise<ItemResult> {
    const res = await openDownload(item, account, getPost, setPost);
    const declared = res.headers.get("content-length");
    const total = declared !== null && /^\d+$/.test(declared) ? Number(declared) : null;
    const contentType = (meta.mimeType as string) ?? "application/octet-stream";
    const md5 = createHash("md5");
    const pending = new Pending();
    let position = 0;
    const iter = pieces(res)[Symbol.asyncIterator]();

    // Small files: read up to the multipart limit; if the body ends there, one request.
    if (!resume && (total === null || total <= s.multipartMaxBytes)) {
      while (pending.length <= s.multipartMaxBytes) {
        const r = await iter.next();
        if (r.done) {
          const body = pending.peek(pending.length);
          const digest = md5.update(body).digest("hex");
          const file = await callDrive((t) => drive.multipart(t, meta, body, contentType));
          verifyMd5(file, digest);
          return { ...(await record(backupId, item, file)), found: false };
        }
        pending.push(r.value);
        position += r.value.length;
      }
      // Larger than announced: continue as a resumable upload with what was read so far.
      for (const p of pending.parts) md5.update(p);
    }

    let session = resume;
    if (!session) {
      const uri = await callDrive((t) => drive.startResumable(t, meta, contentType, total));
      // Recorded before the first byte: a worker that dies now leaves a session to resume.
      await rememberSession(backupId, item, uri, total);
      session = { uri, total, received: 0 };
    }
    const uri = session.uri;
    /** Bytes Drive holds; `pending` starts at this offset of the stream. */
    let offset = session.received;

    // On resume the body is read from the start (for the md5); bytes Drive holds are skipped.

    const send = async (chunk: Buffer, final: boolean): Promise<UploadProgress> => {
      const declaredTotal = final ? position : total;
      for (let attempt = 0; ; attempt++) {
        checkLease();
        try {
          const r = await callDrive((t) => drive.putChunk(t, uri, chunk, offset, declaredTotal), {
            retry: false,
          });
          if (r === "gone") throw new SessionGoneError();
          return r;
        } catch (err) {
          if (!isRetryable(err) || attempt + 1 >= s.backoff.attempts) throw err;
          // The request broke off: ask Drive how much it kept, and continue from there.
          await s.sleep(retryAfterOf(err) ?? backoffDelay(attempt, s.backoff, s.random));
          const st = await callDrive((t) => drive.status(t, uri, declaredTotal));
          if (st === "gone") throw new SessionGoneError();
          if (st.done || st.received !== offset) return st;
        }
      }
    };

    const flush = async (final: boolean): Promise<DriveFile | null> => {
      while (final || pending.length >= chunkBytes) {
        const size = final ? pending.length : chunkBytes;
        const r = await send(pending.peek(size), final);
        if (r.done) return r.file;
        const acknowledged = r.received - offset;
        if (acknowledged < 0 || acknowledged > size) {
          throw new ProviderError(
            "google",
            "transient",
            "Drive reported an unexpected upload offset",
          );
        }
        pending.drop(acknowledged);
        offset = r.received;
        if (final && pending.length === 0) {
          throw new ProviderError("google", "transient", "Drive did not finish the upload");
        }
      }
      return null;
    };

    while (true) {
      const r = await iter.next();
      if (r.done) break;
      const piece = r.value;
      md5.update(piece);
      const start = position;
      position += piece.length;
      if (position <= offset) continue;
      pending.push(start < offset ? piece.subarray(offset - start) : piece);
      await flush(false);
    }
    if (total !== null && position !== total) {
      throw new ProviderError(
        "instagram",
        "network",
        "The download from the Instagram CDN was cut short",
      );
    }
    const digest = md5.digest("hex");
    const file =
      position <= offset && pending.length === 0
        ? await finishedAfterResume(uri, position, callDrive)
        : await flush(true);
    if (!file) throw new ProviderError("google", "transient", "Drive did not finish the upload");
    if (file.md5Checksum && file.md5Checksum !== digest) {
      await callDrive((t) => drive.remove(t, file.id));
      await forgetSession(backupId, item);
      throw new ProviderError(
        "google",
        "transient",
        "The file in Drive does not match the download (md5); uploading again",
      );
    }
    return { ...(await record(backupId, item, file)), found: false };
  }

  /** Every byte was already in Drive (a resumed session): the status query finishes it. */
  async function finishedAfterResume(
    uri: string,
    total: number,
    callDrive: ReturnType<typeof driveCaller>,
  ) {
    const st = await callDrive((t) => drive.status(t, uri, total));
    if (st === "gone") throw new SessionGoneError();
    return st.done ? st.file : null;
  }

  return { run };
}

function describe(err: unknown): string {
  if (err instanceof ProviderError) {
    const who = err.provider === "google" ? "Google Drive" : "Instagram";
    if (err.kind === "throttled") return `${who} is limiting requests right now`;
    if (err.kind === "transient" || err.kind === "network")
      return `${who} is not responding right now (${err.message})`;
    return `${who}: ${err.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

export type BackupEngine = ReturnType<typeof createBackupEngine>;
