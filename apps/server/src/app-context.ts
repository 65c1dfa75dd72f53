import type pg from "pg";
import type { AccountsService } from "./accounts/index.ts";
import type { AdminService } from "./admin/index.ts";
import type { ApiKeysService } from "./api-keys/index.ts";
import type { ArchiveService } from "./archive/index.ts";
import type { AccountMailService, AuthGuards, AuthService } from "./auth/index.ts";
import type {
  BackedUpPost,
  BackupEngine,
  BackupsRepositories,
  BackupsService,
} from "./backups/index.ts";
import type { BillingService, BillingWebhookService } from "./billing/index.ts";
import type { CommentsService } from "./comments/index.ts";
import type { Config } from "./config.ts";
import type { Connections, ConnectionsModule } from "./connections/index.ts";
import type { ContactService } from "./contact/index.ts";
import type { Db } from "./db/database.ts";
import type { HealthService } from "./health/index.ts";
import type { HttpRoot } from "./http/app.ts";
import type { ImportService } from "./import/index.ts";
import type { AnyJob, JobQueue } from "./jobs/queue.ts";
import type { Clock } from "./lib/clock.ts";
import type { ServiceLog } from "./lib/log.ts";
import type { Secrets } from "./lib/secrets.ts";
import type {
  CursorListingService,
  DashboardService,
  LibraryRepositories,
} from "./library/index.ts";
import type { MailService } from "./mail/index.ts";
import type { Alerts, NotificationsService } from "./notifications/index.ts";
import type { StatusService } from "./status/index.ts";
import type {
  AccountsRepository,
  EngineSettings,
  SyncModule,
  SyncRunsService,
} from "./sync/index.ts";
import type { UserDeletionService } from "./users/index.ts";
import type { V1Module } from "./v1/index.ts";

/** What the composition root (context.ts) is given: configuration, database, clock, secrets. */
export interface ContextDeps {
  config: Config;
  db: Db;
  pool: pg.Pool;
  clock: Clock;
  secrets: Secrets;
  /** Where pg-boss connects. */
  databaseUrl: string;
  /** Tests may run other job definitions than the registry's. */
  jobs?: readonly AnyJob<AppContext>[];
  /** Backup engine tunables (tests shrink waits, the benchmark sets the chunk size). */
  engineSettings?: Partial<EngineSettings>;
  /** Where services and jobs report what went wrong outside a request (JSON lines). */
  log?: ServiceLog;
}

/** What routes and job handlers receive: configuration, database, services. */
export interface AppContext extends ContextDeps, HttpRoot {
  /** The schema the job queue keeps its tables in (`QUEUE_SCHEMA`). */
  queueSchema: string;
  /** /api/sync: `runs` (sync area) starts syncs and retries, `dashboard` (library) reads. */
  sync: { runs: SyncRunsService; dashboard: DashboardService };
  /** Retries of one backup or of every failed one (backups area). */
  backups: BackupsService;
  /** Every repository of the sync, backups and library areas (tests read them). */
  syncRepos: SyncModule["repos"] &
    Pick<BackupsRepositories, "folders"> &
    Pick<LibraryRepositories, "backups" | "listing" | "cursors">;
  syncEngine: SyncModule["syncEngine"];
  backupEngine: BackupEngine;
  engine: EngineSettings;
  auth: AuthService;
  /** The mail area: outbox, templates, categories and unsubscribe (mail/mail.service.ts). */
  mail: MailService;
  /** Forgot password, address verification, e-mail and password changes (auth area). */
  accountMail: AccountMailService;
  /** The notification centre (the bell, Settings → Notifications). */
  notifications: NotificationsService;
  /** Alert detection: hooks of the other areas and the periodic checks (notifications/alerts.ts). */
  alerts: Alerts;
  /** One health state per account and destination (issue 36, health/health.rules.ts). */
  health: HealthService;
  guards: AuthGuards;
  queue: JobQueue<AppContext>;
  /**
   * The connections area: `oauth`, `tokens`, `profiles`, `health`; the destinations' custody
   * and flows (`destinations`) and its events.
   */
  connections: Connections & Pick<ConnectionsModule, "destinations" | "events">;
  accounts: AccountsService;
  /** The accounts' rows as the scheduler reads them (with the owner and the sync state). */
  accountsRepo: AccountsRepository;
  userDeletion: UserDeletionService;
  admin: AdminService;
  contact: ContactService;
  status: StatusService;
  billing: BillingService;
  billingWebhooks: BillingWebhookService;
  apiKeys: ApiKeysService;
  /** Engagement history and posts no longer on Instagram (issue 30). */
  archive: ArchiveService;
  /** The public API's keyset pages of posts and backups. */
  listing: CursorListingService;
  /** onRequest hook of /api/v1: an API key, within its rate limit. */
  requireApiKey: V1Module["requireApiKey"];
  /** Settings → Import: Instagram's data export into Drive (issue 31). */
  importer: ImportService;
  /** Comments, for the accounts whose owner opts in. */
  comments: CommentsService;
  /** What other areas do when a sync or a post's backup ends (the sync jobs call them). */
  syncHooks: {
    afterBackup(post: BackedUpPost): Promise<void>;
    afterSync(accountId: string): Promise<void>;
  };
}
