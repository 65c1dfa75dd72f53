// The backups area's public surface: what other areas and the composition root may import.
export type { BackupEngine } from "./backup.engine.ts";
export type { BackupsModule } from "./backups.module.ts";
export { backupsRepository, createBackupsModule, createBackupsStore } from "./backups.module.ts";
export type { BackupsRepositories } from "./backups.repositories.ts";
export type { BackupsRepository } from "./backups.repository.ts";
export type { BackupsService } from "./backups.service.ts";
export { driveCallerFor, GoogleRevokedError } from "./drive-caller.ts";
export type { DriveFoldersRepository } from "./drive-folders.repository.ts";
export type { Folders } from "./folders.ts";
export { createFolders } from "./folders.ts";
export { backupPostJob } from "./jobs/backup-post.job.ts";
export type { ItemResult, Ledger, SessionSeal } from "./ledger.ts";
export type { BackupItem } from "./naming.ts";
export { folderPath } from "./naming.ts";
export { ITEM_KEY, POST_KEY } from "./plan.ts";
export type { OpenSession } from "./upload.ts";
export { createUploader, keepIfIntact, SessionGoneError } from "./upload.ts";
