import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import type { JobSender } from "../jobs/job.ts";
import { createArchiveRepository } from "./archive.repository.ts";
import { registerArchiveRoutes } from "./archive.routes.ts";
import { type ArchiveService, createArchiveService } from "./archive.service.ts";
import { refreshSidecarJob, sidecarSingletonKey } from "./jobs/refresh-sidecar.job.ts";

/** The archive area (issue 30): engagement history and posts no longer on Instagram. */
export function createArchiveModule(
  deps: ModuleBase & {
    queue: JobSender;
    /** The connections area's: the user's Instagram accounts (the CSV's account column). */
    listInstagramAccounts(userId: string): Promise<{ id: string; username: string }[]>;
  },
) {
  const { queue } = deps;
  const archive: ArchiveService = createArchiveService({
    repo: createArchiveRepository(deps.db),
    clock: deps.clock,
    async refreshSidecars(posts) {
      await queue.insert(
        refreshSidecarJob,
        posts.map((p) => ({
          data: p,
          singletonKey: sidecarSingletonKey(p.accountId, p.instagramId),
        })),
      );
    },
    async accountNames(userId) {
      const accounts = await deps.listInstagramAccounts(userId);
      return new Map(accounts.map((a) => [a.id, a.username]));
    },
    ...logOf(deps),
  });
  return {
    archive,
    routes: (app: FastifyInstance, guards: AuthGuards) =>
      registerArchiveRoutes(app, { archive, guards }),
  };
}
