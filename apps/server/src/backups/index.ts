// The backups area's public surface: what other areas and the composition root may import.
export type { BackupEngine } from "./backup.engine.ts";
export type { BackupsModule } from "./backups.module.ts";
export { backupsRepository, createBackupsModule, createBackupsStore } from "./backups.module.ts";
export type { BackupsRepositories } from "./backups.repositories.ts";
export type { BackupsRepository } from "./backups.repository.ts";
export type { BackupsService } from "./backups.service.ts";
export { backupPostJob } from "./jobs/backup-post.job.ts";
export type { BackupItem } from "./naming.ts";
export { baseName, folderPath, postKind } from "./naming.ts";
export type { BackedUpPost } from "./outcome.ts";
export {
  CONNECTION_REASONS,
  destinationFullWords,
  fullDestination,
  fullReason,
} from "./outcome-reasons.ts";
