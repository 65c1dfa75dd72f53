import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase, type ProviderCalls } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import type { BackedUpPost } from "../backups/index.ts";
import type { ConnectionsModule } from "../connections/index.ts";
import type { Destinations } from "../destinations/index.ts";
import type { JobSender } from "../jobs/job.ts";
import { asError } from "../lib/log.ts";
import type { PostLookupsRepository } from "../library/index.ts";
import { createCommentsClient } from "../providers/instagram/comments.client.ts";
import type { AccountsRepository, GraphPacer } from "../sync/index.ts";
import { createCommentsRepository } from "./comments.repository.ts";
import { registerCommentsRoutes } from "./comments.routes.ts";
import { type CommentsService, createCommentsService } from "./comments.service.ts";
import { commentsSingletonKey, refreshCommentsJob } from "./refresh-comments.job.ts";

/** Comments, for the accounts whose owner opts in ("Also keep comments"). */
export function createCommentsModule(
  deps: ModuleBase & {
    calls: ProviderCalls;
    queue: JobSender;
    connections: Pick<ConnectionsModule, "profiles" | "tokens" | "oauth">;
    /** The sync area's account directory and Graph pacer (comment reads share its budget). */
    accountsRepo: Pick<AccountsRepository, "accountWithOwner">;
    pacer: GraphPacer;
    /** The library area's lookups of posts and their backups. */
    postLookups: PostLookupsRepository;
    /** Where a post's comments file is written: its backup's destination. */
    destinations: Pick<Destinations, "of">;
  },
) {
  const { connections, postLookups, calls, queue } = deps;
  const providers = deps.config.providers;
  const comments: CommentsService = createCommentsService({
    repo: createCommentsRepository(deps.db),
    directory: {
      userAccounts: (userId) => connections.profiles.listInstagramAccounts(userId),
      account: (accountId) => deps.accountsRepo.accountWithOwner(accountId),
      post: postLookups.post,
      backedUpPosts: postLookups.backedUpPosts,
      sidecarOf: postLookups.sidecarOf,
      instagramAccessToken: connections.tokens.instagramAccessToken,
      startGrant: (userId, via, scopes, purpose) =>
        connections.oauth.startGrant(userId, via, scopes, purpose),
    },
    client: createCommentsClient(
      {
        instagramGraphUrl: providers.instagram.graphUrl,
        facebookGraphUrl: providers.facebook.graphUrl,
        graphVersion: providers.graphVersion,
      },
      {
        fetch: calls.fetchFor("instagram"),
        onUsage: (key, usage) => deps.pacer.record(key, usage),
      },
    ),
    destinations: deps.destinations,
    graph: (key, fn) => deps.pacer.call(key, fn),
    clock: deps.clock,
    async enqueue(accountId) {
      await queue.send(
        refreshCommentsJob,
        { accountId },
        { singletonKey: commentsSingletonKey(accountId), startAfter: 2 },
      );
    },
    ...logOf(deps),
  });
  return {
    comments,
    /** What the sync jobs call when a sync or a post's backup ends; never fails them. */
    syncHooks: {
      afterBackup: (post: BackedUpPost) =>
        comments
          .afterBackup(post)
          .catch((err) =>
            deps.log?.warn({ postId: post.id, err: asError(err) }, "comments not queued"),
          ),
      afterSync: (accountId: string) =>
        comments
          .afterSync(accountId)
          .catch((err) => deps.log?.warn({ accountId, err: asError(err) }, "comments not queued")),
    },
    routes: (app: FastifyInstance, guards: AuthGuards) =>
      registerCommentsRoutes(app, { comments, guards }),
  };
}
