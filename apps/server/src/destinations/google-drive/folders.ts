import type { Clock } from "../../lib/clock.ts";
import type { DriveClient, DriveFile } from "../../providers/google/drive.client.ts";
import type { FolderRecord } from "../destination.ts";
import type { DriveCall } from "./caller.ts";
import { FOLDER_KEY } from "./properties.ts";

export type { FolderRecord } from "../destination.ts";

/** Where folder ids are recorded, per user, Google account and path (the drive_folders table). */
export interface FolderStore {
  findFolder(
    userId: string,
    googleSub: string,
    path: string,
  ): Promise<{ folder_id: string; created_at: Date; adopted: boolean } | undefined>;
  saveFolder(
    userId: string,
    googleSub: string,
    path: string,
    folderId: string,
    adopted: boolean,
    now: Date,
  ): Promise<{ folder_id: string; created_at: Date; adopted: boolean }>;
  forgetFolder(userId: string, googleSub: string, path: string): Promise<void>;
}

/** Folder ids this process knows, per user, Google account and path (bounded). */
const MAX_CACHED = 20_000;

/**
 * Keepsake / @user / YYYY: each folder from this process's cache, else the database, else found
 * in Drive by appProperties or created — once per process at a time, so concurrent backups of
 * one account do not race to create the same folder. At steady state no Drive call is made.
 */
export function createFolders(deps: { repo: FolderStore; drive: DriveClient; clock: Clock }) {
  const { repo, drive, clock } = deps;
  const cache = new Map<string, FolderRecord>();
  const inflight = new Map<string, Promise<FolderRecord>>();
  const cacheKey = (userId: string, googleSub: string, path: string) =>
    `${userId}\u0000${googleSub}\u0000${path}`;

  async function one(
    call: DriveCall,
    userId: string,
    googleSub: string,
    path: string,
    name: string,
    parent: string,
  ): Promise<FolderRecord> {
    const row = await repo.findFolder(userId, googleSub, path);
    if (row) return { id: row.folder_id, recordedAt: row.created_at, adopted: row.adopted };
    const found = await call((t) =>
      drive.findByAppProperty(t, FOLDER_KEY, path, [
        "mimeType = 'application/vnd.google-apps.folder'",
      ]),
    );
    const mine = found[0]?.id;
    const created: DriveFile | null = mine
      ? null
      : await call((t) =>
          drive.createFolder(t, { name, parents: [parent], appProperties: { [FOLDER_KEY]: path } }),
        );
    const saved = await repo.saveFolder(
      userId,
      googleSub,
      path,
      mine ?? (created as DriveFile).id,
      Boolean(mine),
      clock.now(),
    );
    // Another worker process created the same folder at the same moment: keep theirs.
    if (created && saved.folder_id !== created.id) {
      await call((t) => drive.remove(t, created.id)).catch(() => {});
    }
    return { id: saved.folder_id, recordedAt: saved.created_at, adopted: saved.adopted };
  }

  return {
    /** The folders of `path`, outermost first; answers the innermost. */
    async ensure(
      call: DriveCall,
      userId: string,
      googleSub: string,
      path: string[],
    ): Promise<FolderRecord> {
      let parent: FolderRecord = { id: "root", recordedAt: new Date(0), adopted: false };
      for (let i = 1; i <= path.length; i++) {
        const key = path.slice(0, i).join("/");
        const k = cacheKey(userId, googleSub, key);
        let record = cache.get(k);
        if (!record) {
          let pending = inflight.get(k);
          if (!pending) {
            pending = one(call, userId, googleSub, key, path[i - 1] as string, parent.id);
            inflight.set(k, pending);
            pending.finally(() => inflight.delete(k)).catch(() => {});
          }
          record = await pending;
          if (cache.size >= MAX_CACHED) cache.clear();
          cache.set(k, record);
        }
        parent = record;
      }
      return parent;
    },

    /** The folders of `path` were deleted in Drive: forget them so the next ensure remakes them. */
    async forget(userId: string, googleSub: string, path: string[]) {
      for (let i = 1; i <= path.length; i++) {
        const key = path.slice(0, i).join("/");
        cache.delete(cacheKey(userId, googleSub, key));
        await repo.forgetFolder(userId, googleSub, key);
      }
    },
  };
}

export type Folders = ReturnType<typeof createFolders>;
