import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase, type ProviderCalls } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import { createHook, type Listen } from "../lib/hooks.ts";
import type { Secrets } from "../lib/secrets.ts";
import { createFacebookClient } from "../providers/facebook/facebook.client.ts";
import { createGoogleOAuthClient } from "../providers/google/google-oauth.client.ts";
import { createInstagramClient } from "../providers/instagram/instagram.client.ts";
import type { ConnectionTokens } from "./connection-tokens.ts";
import { type Connections, createConnections, type LostConnection } from "./connections.parts.ts";
import {
  type ConnectionsRepository,
  createConnectionsRepository,
} from "./connections.repository.ts";
import { registerConnectionRoutes } from "./connections.routes.ts";
import { createOAuthStates } from "./oauth-state.ts";
import { createPlatformSignalsRepository } from "./platform-signals.repository.ts";
import { registerPlatformSignalRoutes } from "./platform-signals.routes.ts";

/** The connections area as the composition root builds it: its parts, its repository, its events. */
export interface ConnectionsModule extends Connections {
  /** The connections' rows (the plan and accounts other areas read, the account limit). */
  repo: ConnectionsRepository;
  /** What the sync and backup engines use of the parts. */
  engineTokens: ConnectionTokens;
  /** What areas built later are told (their modules add a listener). */
  events: {
    /** A connection was made (the OAuth callback): Google when `accountIds` is undefined. */
    connected: Listen<[userId: string, accountIds: string[] | undefined]>;
    /** Instagram accounts were disconnected (before a freed slot resumes a paused account). */
    disconnected: Listen<[userId: string, accountLimit: number]>;
    /** A provider ended a connection; once per grant. */
    needsReconnection: Listen<[lost: LostConnection]>;
  };
  routes(app: FastifyInstance, guards: AuthGuards): void;
}

/** Builds the connections area from the provider settings and the call counter. */
export function createConnectionsModule(
  deps: ModuleBase & { secrets: Secrets; calls: Pick<ProviderCalls, "fetchFor"> },
): ConnectionsModule {
  const providers = deps.config.providers;
  const repo = createConnectionsRepository(deps.db);
  const connected = createHook<[string, string[] | undefined]>();
  const disconnected = createHook<[string, number]>();
  const needsReconnection = createHook<[LostConnection]>();
  const parts = createConnections({
    repo,
    states: createOAuthStates({ repo, clock: deps.clock, key: deps.secrets.jwtSecret }),
    clock: deps.clock,
    encryptionKey: deps.secrets.encryptionKey,
    appUrl: deps.config.appUrl,
    signalsRepo: createPlatformSignalsRepository(deps.db),
    metaSecrets: {
      instagram: providers.instagram.clientSecret,
      facebook: providers.facebook.appSecret,
    },
    googleClientId: providers.google.clientId,
    instagram: createInstagramClient(
      { ...providers.instagram, graphVersion: providers.graphVersion },
      deps.calls.fetchFor("instagram"),
    ),
    facebook: createFacebookClient(
      { ...providers.facebook, graphVersion: providers.graphVersion },
      deps.calls.fetchFor("instagram"),
    ),
    google: createGoogleOAuthClient(providers.google, deps.calls.fetchFor("google")),
    ...logOf(deps),
    onConnected: connected,
    onNeedsReconnection: needsReconnection,
    // The listeners first (a disconnected account's running syncs end), then a freed slot
    // resumes a paused account.
    onDisconnected: async (userId, limit) => {
      await disconnected(userId, limit);
      await repo.applyAccountLimit(userId, limit);
    },
  });
  return {
    ...parts,
    repo,
    engineTokens: {
      googleAccessToken: parts.tokens.googleAccessToken,
      instagramAccessToken: parts.tokens.instagramAccessToken,
      openInstagramToken: parts.tokens.openInstagramToken,
      markInstagramNeedsReconnection: parts.health.markInstagramNeedsReconnection,
      refreshStaleProfiles: parts.profiles.refreshStaleProfiles,
    },
    events: { connected, disconnected, needsReconnection },
    routes(app, guards) {
      registerConnectionRoutes(app, { connections: parts, guards });
      registerPlatformSignalRoutes(app, { connections: parts });
    },
  };
}
