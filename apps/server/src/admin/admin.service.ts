import {
  type AdminUsersResponse,
  adminMessages,
  type DeletionResponse,
  type User,
} from "@keepsake/contracts";
import type { AdminRepository, AuthService, Principal } from "../auth/index.ts";
import type { UserRow } from "../auth/tables.ts";
import type { JobQueue } from "../jobs/queue.ts";
import { AppError } from "../lib/errors.ts";
import { syncAccountJob } from "../sync/index.ts";
import type { UserDeletionService } from "../users/index.ts";

export interface AdminServiceDeps {
  repo: AdminRepository;
  auth: Pick<AuthService, "profile" | "revokeAllSessions">;
  deletion: UserDeletionService;
  /** The user's Instagram account ids (their scheduled syncs are keyed by them). */
  accountIds(userId: string): Promise<string[]>;
  queue: Pick<JobQueue<unknown>, "purge">;
}

/** SPEC §2 /admin and §6: what an administrator may do to other users. */
export function createAdminService(deps: AdminServiceDeps) {
  async function target(actor: Principal, id: string, selfMessage: string): Promise<UserRow> {
    if (id === actor.user.id) throw new AppError("bad_request", selfMessage);
    const user = await deps.repo.findUser(id);
    if (!user) throw new AppError("not_found", adminMessages.notFound);
    return user;
  }

  async function toggle(id: string, flag: "is_admin" | "is_active"): Promise<UserRow> {
    const user = await deps.repo.toggle(id, flag);
    if (!user) throw new AppError("not_found", adminMessages.notFound);
    return user;
  }

  return {
    async listUsers(q: {
      search?: string | undefined;
      limit: number;
      offset: number;
    }): Promise<AdminUsersResponse> {
      const { rows, total } = await deps.repo.listUsers(q);
      const users = await Promise.all(rows.map((u) => deps.auth.profile(u)));
      return { users, total, limit: q.limit, offset: q.offset };
    },

    async toggleAdmin(actor: Principal, id: string): Promise<User> {
      await target(actor, id, adminMessages.selfAdmin);
      return deps.auth.profile(await toggle(id, "is_admin"));
    },

    /**
     * Deactivating ends the user's sessions at once and drops their queued scheduled syncs
     * (the scheduler skips inactive users, so none are queued again until reactivation).
     */
    async toggleActive(actor: Principal, id: string): Promise<User> {
      await target(actor, id, adminMessages.selfActive);
      const user = await toggle(id, "is_active");
      if (!user.is_active) {
        await deps.auth.revokeAllSessions(user.id);
        await deps.queue.purge(syncAccountJob.name, "accountId", await deps.accountIds(user.id), {
          queuedOnly: true,
        });
      }
      return deps.auth.profile(user);
    },

    async deleteUser(actor: Principal, id: string): Promise<DeletionResponse> {
      const user = await target(actor, id, adminMessages.selfDelete);
      return deps.deletion.deleteUser(user);
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
