import type { FastifyInstance } from "fastify";
import type { ModuleBase } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import { backupsRepository } from "../backups/index.ts";
import type { ConnectionsModule } from "../connections/index.ts";
import { inTransaction } from "../db/transaction.ts";
import type { Destinations } from "../destinations/index.ts";
import { decryptSecret, encryptSecret } from "../lib/crypto.ts";
import type { Secrets } from "../lib/secrets.ts";
import {
  type AccountsRepository,
  createPostsRepository,
  type PostsRepository,
} from "../sync/index.ts";
import { createImportRepository } from "./import.repository.ts";
import { registerImportRoutes } from "./import.routes.ts";
import { createImportService, type ImportService } from "./import.service.ts";

/** Settings → Import (issue 31): Instagram's data export into Drive. */
export function createImportModule(
  deps: ModuleBase & {
    secrets: Pick<Secrets, "encryptionKey">;
    connections: Pick<ConnectionsModule, "repo" | "tokens">;
    accountsRepo: Pick<AccountsRepository, "accountWithOwner">;
    posts: Pick<PostsRepository, "postsForImportMatch" | "newestPostTimes">;
    /** The backups' destinations: the import writes with the same folders, uploader and ledger. */
    destinations: Pick<Destinations, "of">;
  },
) {
  const { db, clock, connections } = deps;
  const key = deps.secrets.encryptionKey;
  const importer: ImportService = createImportService({
    repo: createImportRepository(db),
    directory: {
      accountWithOwner: deps.accountsRepo.accountWithOwner,
      userTier: connections.repo.userTier,
      destinationState: connections.repo.destinationState,
      postsForImportMatch: deps.posts.postsForImportMatch,
      newestPostTimes: deps.posts.newestPostTimes,
      // The post and its completed backup in one transaction: a crash between them would leave
      // an imported post without a backup, which a sync could then claim for the Graph API.
      async recordImportedPost({ backup, ...post }) {
        const now = clock.now();
        await inTransaction(db, async (tx) => {
          const postId = await createPostsRepository(tx).recordImported(post, now);
          if (postId) {
            await backupsRepository(tx).recordImportedBackup(
              { ...backup, ...post, post_id: postId },
              now,
            );
          }
        });
      },
    },
    destinations: deps.destinations,
    sessions: {
      seal: (uri) => encryptSecret(key, uri),
      open: (sealed) => decryptSecret(key, sealed),
    },
    clock,
  });
  return {
    importer,
    routes: (app: FastifyInstance, guards: AuthGuards) =>
      registerImportRoutes(app, { importer, guards }),
  };
}
