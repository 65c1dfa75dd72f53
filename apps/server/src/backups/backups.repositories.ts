import type { PostsRepository, SyncRunsRepository } from "../sync/index.ts";
import type { BackupsRepository } from "./backups.repository.ts";
import type { DriveFoldersRepository } from "./drive-folders.repository.ts";

/** The backups area's repositories, and what it reads through the sync area's (posts, runs). */
export interface BackupsRepositories {
  posts: PostsRepository;
  runs: SyncRunsRepository;
  /** backups and backup_files. */
  backups: BackupsRepository;
  /** drive_folders. */
  folders: DriveFoldersRepository;
}
