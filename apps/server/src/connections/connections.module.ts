import {
  type AccountProfilesService,
  createAccountProfilesService,
} from "./account-profiles.service.ts";
import {
  type ConnectionHealthService,
  createConnectionHealthService,
} from "./connection-health.service.ts";
import { createOAuthService, type OAuthService, type OAuthServiceDeps } from "./oauth.service.ts";
import { createTokenCustody, type TokenCustody } from "./token-custody.service.ts";

/** The connections area, one part per concern; callers receive the part they use. */
export interface Connections {
  /** Starting and completing a connection (routes). */
  oauth: OAuthService;
  /** Sealed tokens: usable ones for the engines, renewal, revocation (jobs, user deletion). */
  tokens: TokenCustody;
  /** The connected accounts and their profile data (accounts area, auth, sync). */
  profiles: AccountProfilesService;
  /** Status and health of the connections; marks of access that ended (dashboard, engines). */
  health: ConnectionHealthService;
}

/** What the OAuth flows need (the token custody is made here), plus the sealing key. */
export interface ConnectionsDeps extends Omit<OAuthServiceDeps, "tokens"> {
  /** AES-256-GCM key the tokens are sealed with at rest. */
  encryptionKey: Buffer;
  /** Called after Instagram accounts were disconnected: a freed slot resumes a paused account. */
  onDisconnected?: (userId: string, accountLimit: number) => Promise<unknown>;
}

/** Wires the four parts of the connections area over one repository. */
export function createConnections(deps: ConnectionsDeps): Connections {
  const { repo, clock } = deps;
  const log = deps.log ? { log: deps.log } : {};
  const tokens = createTokenCustody({
    repo,
    clock,
    encryptionKey: deps.encryptionKey,
    instagram: deps.instagram,
    facebook: deps.facebook,
    google: deps.google,
    ...log,
  });
  const oauth = createOAuthService({
    repo,
    states: deps.states,
    clock,
    tokens,
    appUrl: deps.appUrl,
    instagram: deps.instagram,
    facebook: deps.facebook,
    google: deps.google,
    ...log,
    ...(deps.onConnected ? { onConnected: deps.onConnected } : {}),
  });
  const profiles = createAccountProfilesService({
    repo,
    clock,
    tokens,
    ...(deps.onDisconnected ? { onDisconnected: deps.onDisconnected } : {}),
  });
  const health = createConnectionHealthService({ repo, clock, tokens });
  return { oauth, tokens, profiles, health };
}
