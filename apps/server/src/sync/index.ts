// The sync area's public surface: what other areas and the composition root may import.
export type { AccountsRepository } from "./account-directory.repository.ts";
export type { AttemptInfo, EngineLog, SyncDirectory } from "./engine.types.ts";
export { toPostChild } from "./engine.types.ts";
export type { EngineSettings } from "./engine-settings.ts";
export type { GraphPacer } from "./graph-pacer.ts";
export { syncAccountJob } from "./jobs/sync-account.job.ts";
export { syncSchedulerJob } from "./jobs/sync-scheduler.job.ts";
export type { PostLimit, PostsRepository } from "./posts.repository.ts";
export { createPostsRepository } from "./posts.repository.ts";
export { minutesUntilNextSync } from "./schedule.ts";
export type { SyncModule } from "./sync.module.ts";
export { createSyncModule, engineSettings } from "./sync.module.ts";
export { FROM_API_TYPE, iso, toBackup, toPost } from "./sync.shapes.ts";
export type { SyncRunsRepository } from "./sync-runs.repository.ts";
export { createSyncRunsRepository } from "./sync-runs.repository.ts";
export type { SyncRunsService } from "./sync-runs.service.ts";
