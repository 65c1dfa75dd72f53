import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase, type ProviderCalls } from "../area-module.ts";
import type { AuthGuards } from "../auth/index.ts";
import { s3PublicOnly } from "../config.ts";
import { createHook, type Listen } from "../lib/hooks.ts";
import type { Secrets } from "../lib/secrets.ts";
import { createDropboxClient } from "../providers/dropbox/dropbox.client.ts";
import { createDropboxOAuthClient } from "../providers/dropbox/dropbox-oauth.client.ts";
import { createFacebookClient } from "../providers/facebook/facebook.client.ts";
import { createGoogleOAuthClient } from "../providers/google/google-oauth.client.ts";
import { createInstagramClient } from "../providers/instagram/instagram.client.ts";
import { microsoftAccount } from "../providers/microsoft/microsoft-account.ts";
import { createMicrosoftOAuthClient } from "../providers/microsoft/microsoft-oauth.client.ts";
import type { ConnectionTokens } from "./connection-tokens.ts";
import { type Connections, createConnections, type LostConnection } from "./connections.parts.ts";
import {
  type ConnectionsRepository,
  createConnectionsRepository,
} from "./connections.repository.ts";
import { registerConnectionRoutes } from "./connections.routes.ts";
import {
  createDestinationConnect,
  type DestinationConnect,
} from "./destination-connect.service.ts";
import {
  type ConnectedKind,
  createDestinationConnectionsRepository,
} from "./destination-connections.repository.ts";
import {
  createDestinationCustody,
  type DestinationCustody,
  type LostDestination,
} from "./destination-custody.service.ts";
import type { AccountChosen } from "./destination-state.ts";
import { registerDestinationRoutes } from "./destinations.routes.ts";
import { createOAuthStates } from "./oauth-state.ts";
import { createPlatformSignalsRepository } from "./platform-signals.repository.ts";
import { registerPlatformSignalRoutes } from "./platform-signals.routes.ts";
import { probeS3 } from "./s3-probe.ts";

/** The connections area as the composition root builds it: its parts, its repository, its events. */
export interface ConnectionsModule extends Connections {
  /** The connections' rows (the plan and accounts other areas read, the account limit). */
  repo: ConnectionsRepository;
  /** What the sync and backup engines use of the parts. */
  engineTokens: ConnectionTokens;
  /**
   * Dropbox, OneDrive and S3 (issue 38): `custody` is the `DestinationCredentials` the
   * destinations' adapters are given (plus marking and disconnecting); `connect` the flows.
   */
  destinations: { custody: DestinationCustody; connect: DestinationConnect };
  /** What areas built later are told (their modules add a listener). */
  events: {
    /** A connection was made (the OAuth callback): Google when `accountIds` is undefined. */
    connected: Listen<[userId: string, accountIds: string[] | undefined]>;
    /** Instagram accounts were disconnected (before a freed slot resumes a paused account). */
    disconnected: Listen<[userId: string, accountLimit: number]>;
    /** A provider ended a connection; once per grant. */
    needsReconnection: Listen<[lost: LostConnection]>;
    /** Dropbox, OneDrive or S3 storage was connected (or reconnected) by the user. */
    destinationConnected: Listen<[userId: string, kind: ConnectedKind]>;
    /** A destination refused its grant or keys: it needs reconnecting (once per grant). */
    destinationNeedsReconnection: Listen<[lost: LostDestination]>;
    /**
     * Inside the transaction that stores a destination's connection (Google Drive's too): which
     * account of it is connected now, and which one was. A listener's error undoes the connection.
     */
    accountChosen: Listen<Parameters<AccountChosen>>;
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
  const destinationConnected = createHook<[string, ConnectedKind]>();
  const destinationNeedsReconnection = createHook<[LostDestination]>();
  const accountChosen = createHook<Parameters<AccountChosen>>();
  const states = createOAuthStates({ repo, clock: deps.clock, key: deps.secrets.jwtSecret });
  const parts = createConnections({
    repo,
    states,
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
    onAccountChosen: accountChosen,
    onNeedsReconnection: needsReconnection,
    // The listeners first (a disconnected account's running syncs end), then a freed slot
    // resumes a paused account.
    onDisconnected: async (userId, limit) => {
      await disconnected(userId, limit);
      await repo.applyAccountLimit(userId, limit);
    },
  });
  const destinationRepo = createDestinationConnectionsRepository(deps.db);
  const dropboxOAuth = createDropboxOAuthClient(providers.dropbox, deps.calls.fetchFor("dropbox"));
  const dropbox = createDropboxClient(providers.dropbox, { fetch: deps.calls.fetchFor("dropbox") });
  const microsoft = createMicrosoftOAuthClient(
    providers.microsoft,
    deps.calls.fetchFor("microsoft"),
  );
  const custody = createDestinationCustody({
    repo: destinationRepo,
    clock: deps.clock,
    encryptionKey: deps.secrets.encryptionKey,
    dropboxOAuth,
    dropbox,
    microsoft,
    onNeedsReconnection: destinationNeedsReconnection,
    ...logOf(deps),
  });
  const connect = createDestinationConnect({
    repo: destinationRepo,
    google: repo,
    states,
    clock: deps.clock,
    encryptionKey: deps.secrets.encryptionKey,
    appUrl: deps.config.appUrl,
    dropboxOAuth,
    dropbox,
    microsoft,
    microsoftAccount: (token) => microsoftAccount(providers.microsoft, token),
    probe: (settings) => probeS3(settings, { publicOnly: s3PublicOnly(deps.config) }),
    s3PublicOnly: s3PublicOnly(deps.config),
    onConnected: destinationConnected,
    onAccountChosen: accountChosen,
    ...logOf(deps),
  });
  return {
    ...parts,
    repo,
    destinations: { custody, connect },
    engineTokens: {
      googleAccessToken: parts.tokens.googleAccessToken,
      instagramAccessToken: parts.tokens.instagramAccessToken,
      openInstagramToken: parts.tokens.openInstagramToken,
      markInstagramNeedsReconnection: parts.health.markInstagramNeedsReconnection,
      refreshStaleProfiles: parts.profiles.refreshStaleProfiles,
    },
    events: {
      connected,
      disconnected,
      needsReconnection,
      destinationConnected,
      destinationNeedsReconnection,
      accountChosen,
    },
    routes(app, guards) {
      registerConnectionRoutes(app, { connections: parts, guards });
      registerDestinationRoutes(app, {
        connect,
        custody,
        disconnectGoogle: parts.tokens.disconnectGoogle,
        guards,
      });
      registerPlatformSignalRoutes(app, { connections: parts });
    },
  };
}
