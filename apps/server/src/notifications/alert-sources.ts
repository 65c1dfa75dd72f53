import type { DestinationKind } from "@keepsake/contracts";
import type { LostConnection, LostDestination } from "../connections/index.ts";
import type { FailureFacts, LostStoriesFacts } from "../health/index.ts";

/** What the alerts are told by other areas, and what their checks read of them. */

/** A connection the provider ended: the connections area owns its shape and reports it. */
/** A Dropbox, OneDrive or S3 storage that refused its grant or keys (connections area). */
export type { LostConnection, LostDestination };

/** The connections a connection alert is about: a source, Google Drive, or another destination. */
export type AlertedConnection = "instagram" | "google" | LostDestination["kind"];

/** A backup that failed for good (the backups area reports its outcome). */
export interface FailedBackup {
  accountId: string;
  postId: string;
  /** The outcome's reason word (drive_full, retries_exhausted, google_revoked…). */
  reason: string;
  message: string;
}

/** A Stripe event the billing area handled. */
export interface BillingEvent {
  userId: string;
  eventId: string;
  type: string;
  before: string;
  after: string;
  /** When the subscription's current period ends (payment failures: until when the plan runs). */
  periodEnd: Date | null;
}

/** What the checks read of other areas (functions of their repositories, wired in context.ts). */
export interface AlertSources {
  /** The account's owner, and where its backups go (Google Drive when absent). */
  accountOwner(
    accountId: string,
  ): Promise<{ user_id: string; username: string; destination?: DestinationKind } | undefined>;
  expiringTokens(
    now: Date,
    until: Date,
  ): Promise<
    {
      id: string;
      user_id: string;
      username: string;
      connected_via: "instagram" | "facebook";
      token_issued_at: Date;
      token_expires_at: Date | null;
    }[]
  >;
  staleAccounts(before: Date): Promise<
    {
      id: string;
      user_id: string;
      username: string;
      last_sync_at: Date | null;
      connected_at: Date;
    }[]
  >;
  expiredStories(
    from: Date,
    to: Date,
  ): Promise<
    {
      post_id: string;
      account_id: string;
      user_id: string;
      posted_at: Date;
      error_message: string | null;
    }[]
  >;
  pausedAccounts(userId: string): Promise<string[]>;
  digestUsers(): Promise<string[]>;
  userSummary(
    userId: string,
    since: Date,
  ): Promise<{
    backed_up_since: number;
    completed_total: number;
    failed_total: number;
    bytes_total: number;
  }>;
  /** The actions the user's connections need ("Reconnect @x"), for the digest. */
  connectionActions(userId: string): Promise<string[]>;
  mayReceiveDigest(userId: string): Promise<boolean>;
  /** Each account's failed backups, as the health state reads them (its `failures` source). */
  failures(userId: string): Promise<FailureFacts[]>;
  /** Each account's lost stories, as the health state reads them (its `lostStories` source). */
  lostStories(userId: string, from: Date, to: Date): Promise<LostStoriesFacts[]>;

  // What the resolution of open alerts reads.
  /** How many of the account's backups are failed now. */
  failedBackupsOf(accountId: string): Promise<number>;
  /** Backups of the user completed since `since` (Drive took files again). */
  completedSince(userId: string, since: Date): Promise<number>;
  /** When each destination last took a backup of the user (a full one has room again). */
  lastCompletedBy?(userId: string): Promise<Partial<Record<DestinationKind, Date>>>;
  /** Paid accounts still without a successful sync since `before`. */
  staleAccountIds(before: Date): Promise<Set<string>>;
  /** Whether the connection still needs reconnecting (false once it works again or is gone). */
  stillNeedsReconnection(provider: AlertedConnection, subjectId: string): Promise<boolean>;
}
