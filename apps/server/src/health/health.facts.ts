import type { DestinationKind, SyncJob, SyncProgress } from "@keepsake/contracts";

/**
 * What the health state is computed from (health.rules.ts): the rows of the other areas, read
 * by the service (health.service.ts). Pure data, so the rules can be tested alone.
 */

export interface AccountFacts {
  id: string;
  username: string;
  status: "active" | "needs_reconnection" | string;
  status_reason: string | null;
  paused_by_plan: boolean;
  connected_via: "instagram" | "facebook";
  token_expires_at: Date | null;
  updated_at: Date;
  /** Where its backups go (issue 38); Google Drive when absent. */
  destination?: DestinationKind;
}

/** A Dropbox, OneDrive or S3 connection (`destination_connections`). */
export interface StorageFacts {
  kind: Exclude<DestinationKind, "google_drive">;
  /** The account's e-mail, or `bucket at host`. */
  label: string;
  status: "active" | "needs_reconnection" | string;
  status_reason: string | null;
  updated_at: Date;
}

export interface DriveFacts {
  google_email: string;
  status: "active" | "needs_reconnection" | string;
  status_reason: string | null;
  updated_at: Date;
}

export interface FailureFacts {
  accountId: string;
  failed: number;
  since: Date;
  /** When the newest failure happened, and its words. */
  latestAt: Date;
  latest: string | null;
}

/** Backups of an account waiting with the same words (a provider's limit, by its words). */
export interface ThrottledFacts {
  accountId: string;
  message: string | null;
  waiting: number;
  since: Date;
  latestAt: Date;
}

/** An account of a paid plan whose automatic backups have not completed a sync for a day. */
export interface StaleFacts {
  id: string;
  last_sync_at: Date | null;
  connected_at: Date;
}

/** An account's stories that expired unsaved, with no backup of it completed since. */
export interface LostStoriesFacts {
  accountId: string;
  lost: number;
  since: Date;
  latestAt: Date;
}

/** The plan's subscription that Stripe could not charge (past due). */
export interface PaymentFacts {
  tier: string;
  since: Date;
  periodEnd: Date | null;
}

export interface HealthFacts {
  now: Date;
  accounts: AccountFacts[];
  drive: DriveFacts | undefined;
  /** The user's other destinations' connections (none when omitted). */
  storage?: StorageFacts[];
  failures: FailureFacts[];
  /** Backups waiting for a provider's limit (none when omitted). */
  throttled?: ThrottledFacts[];
  /** Accounts whose automatic backups are a day behind (none when omitted). */
  stale?: StaleFacts[];
  /** Stories lost per account (none when omitted). */
  lostStories?: LostStoriesFacts[];
  /** The failed payment, if any. */
  payment?: PaymentFacts | null;
  /** When Drive last took a backup (a refusal for space before it is over). */
  lastCompletedAt: Date | null;
  /**
   * When each destination last took a backup (issue 38); when given, a destination's refusal
   * for space or its limit is over only once it took one (`lastCompletedAt` otherwise).
   */
  lastCompletedBy?: Partial<Record<DestinationKind, Date>>;
  /** The latest run (any account), and whether one is running now. */
  latestRun: SyncJob | null;
  /** The user's newest runs, newest first (an account's latest run: a throttled sync). */
  recentRuns?: SyncJob[];
  runningAccountIds: Set<string>;
  /**
   * The running backups' progress from the Pending count's definition (backups' `syncProgress`):
   * a running run says "Processing X of Y posts..." with it, never from its own counters.
   */
  progress?: SyncProgress | null;
  /** Whether a backup run ever ended or a post is in Drive (the first-run path is done). */
  firstBackupDone: boolean;
  /** Days before an Instagram token ends that a Facebook Login token is called expiring. */
  expiringWindowMs: number;
}
