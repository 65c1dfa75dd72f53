import { isDestinationKind, syncMessages as m } from "@keepsake/contracts";
import { type ConnectionTokens, destinationReconnectWords } from "../connections/index.ts";
import type { ItemResult } from "../destinations/index.ts";
import { classifyDestinationError, DestinationRevokedError } from "../destinations/index.ts";
import type { Clock } from "../lib/clock.ts";
import { backupsFinished } from "../lib/metrics.ts";
import {
  backupRetryWords,
  backupWaitWords,
  destinationRefusedWords,
  reconnectWords,
} from "../providers/failure-words.ts";
import { isInstagramTokenInvalid, ProviderError } from "../providers/provider-error.ts";
import { DeferError } from "../providers/retry.ts";
import type { AttemptInfo, EngineLog, SyncDirectory } from "../sync/index.ts";
import type { BackupsRepository } from "./backups.repository.ts";
import { destinationFullWords, fullReason, revokedReason } from "./outcome-reasons.ts";
import type { BackupRow } from "./tables.ts";

/** The post a completed backup put in its destination, as the areas told of it need it. */
export interface BackedUpPost {
  id: string;
  account_id: string;
  posted_at: Date;
  media_product_type: string | null;
}

export type BackupOutcome =
  | { outcome: "completed"; duplicate: boolean; post: BackedUpPost }
  | { outcome: "unavailable"; message: string }
  | { outcome: "failed"; message: string }
  | { outcome: "retry"; message: string }
  | { outcome: "deferred"; delayMs: number }
  | { outcome: "skipped" };

/** A backup that ended failed; `reason` is the metric's word (drive_full, retries_exhausted…). */
export interface FailedBackupEvent {
  accountId: string;
  postId: string;
  reason: string;
  message: string;
}

type Finish = Parameters<BackupsRepository["finishBackup"]>[2];

/**
 * Records how one claimed attempt of a backup ended — completed, unavailable from Instagram,
 * failed (final, or for the next sync to retry), back to pending for a retry or a deferral; the
 * same statement counts an ended backup in its sync run (`finishBackup`).
 */
export function outcomeRecorder(deps: {
  backups: Pick<BackupsRepository, "finishBackup">;
  directory: Pick<SyncDirectory, "accountWithOwner">;
  connections: Pick<ConnectionTokens, "markInstagramNeedsReconnection">;
  clock: Clock;
  log?: EngineLog | undefined;
  backup: BackupRow;
  lease: string;
  /** Told of every backup that failed (the notifications area's alerts); must not throw. */
  onFailed?: ((failed: FailedBackupEvent) => Promise<void>) | undefined;
}) {
  const { backups, directory, clock, backup, lease } = deps;

  const finish = async (
    status: Finish["status"],
    fields: Omit<Finish, "status" | "now">,
  ): Promise<void> => {
    await backups.finishBackup(backup.id, lease, { status, now: clock.now(), ...fields });
  };

  /** `reason`: the metric's label (keepsake_backups_total), a word for each kind of failure. */
  const fail = async (
    message: string,
    retryOnSync: boolean,
    reason = "other",
  ): Promise<BackupOutcome> => {
    await finish("failed", { error_message: message, retry_on_sync: retryOnSync });
    backupsFinished.inc({ outcome: "failed", reason });
    await deps.onFailed?.({
      accountId: backup.account_id,
      postId: backup.post_id,
      reason,
      message,
    });
    return { outcome: "failed", message };
  };

  return {
    fail,

    /**
     * Every item is in Drive: the backup is completed — also when every file was found there
     * already (`duplicate`: an earlier backup, or an earlier connection, put it there), since
     * the post is in Drive. With `withheld` media items (Instagram gives no URL for them), it is
     * unavailable from Instagram: the other files and the sidecar are in Drive, nothing to retry.
     */
    async completed(
      files: (ItemResult & { kind: string })[],
      withheld: number,
      /** The destination's account the files are in (the ledger's `owner`). */
      owner: string,
      post: BackedUpPost,
    ): Promise<BackupOutcome> {
      const media = files.filter((f) => f.kind === "media");
      const first = media[0] ?? files.find((f) => f.kind === "meta");
      const duplicate = backup.attempts === 1 && media.length > 0 && media.every((f) => f.found);
      const unavailable = withheld > 0;
      await finish(unavailable ? "unavailable" : "completed", {
        error_message: unavailable ? m.mediaUnavailable : null,
        retry_on_sync: false,
        owner,
        backup_size_bytes: files.reduce((n, f) => n + f.size, 0),
        md5: first?.md5 ?? null,
        google_drive_file_id: first?.fileId ?? null,
        google_drive_url: first?.webUrl ?? null,
      });
      backupsFinished.inc(
        unavailable
          ? { outcome: "unavailable", reason: "media_withheld" }
          : { outcome: "completed", reason: duplicate ? "already_in_drive" : "uploaded" },
      );
      return unavailable
        ? { outcome: "unavailable", message: m.mediaUnavailable }
        : { outcome: "completed", duplicate, post };
    },

    /** What an error means for this backup: final, for the next sync, retried, or deferred. */
    async failure(err: unknown, attempt: AttemptInfo): Promise<BackupOutcome> {
      if (err instanceof DeferError) {
        await finish("pending", { error_message: backupWaitWords(err.cause) });
        backupsFinished.inc({ outcome: "deferred", reason: "rate_limited" });
        return { outcome: "deferred", delayMs: err.delayMs };
      }
      const destination = classifyDestinationError(err);
      if (err instanceof DestinationRevokedError) {
        const kind = isDestinationKind(err.destination) ? err.destination : "google_drive";
        return fail(destinationReconnectWords(kind), true, revokedReason(kind));
      }
      // The user frees space (or buys more): the next sync, or Retry, tries again.
      if (destination?.kind === "quota_full") {
        const kind = backup.destination ?? "google_drive";
        return fail(destinationFullWords(kind), true, fullReason(kind));
      }
      if (err instanceof ProviderError) {
        if (isInstagramTokenInvalid(err)) {
          const acc = await directory.accountWithOwner(backup.account_id);
          const message = reconnectWords.instagram(acc?.username ?? "your account");
          await deps.connections.markInstagramNeedsReconnection(backup.account_id, message);
          return fail(message, true, "instagram_revoked");
        }
        if (err.kind === "permission") {
          // The destination's own words when it refused the write; Instagram's otherwise.
          const instagram = err.provider === "instagram" || err.provider === "facebook";
          return fail(
            instagram
              ? "Instagram did not allow Keepsake to read this post. Reconnect the account and allow access."
              : destinationRefusedWords(err),
            true,
            `${err.provider}_permission`,
          );
        }
      }
      const message = backupRetryWords(err);
      if (attempt.retryCount >= attempt.retryLimit) {
        return fail(
          `Backup failed after ${attempt.retryCount + 1} attempts: ${message}`,
          true,
          "retries_exhausted",
        );
      }
      await finish("pending", { error_message: `Retrying: ${message}` });
      backupsFinished.inc({ outcome: "retry", reason: "transient" });
      deps.log?.warn({ postId: backup.post_id, err: message }, "backup attempt failed; retrying");
      return { outcome: "retry", message };
    },
  };
}
