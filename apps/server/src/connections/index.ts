// The connections area's public surface: what other areas and the composition root may import.
export type { AccountProfilesService } from "./account-profiles.service.ts";
export { instagramHealth } from "./connection-rules.ts";
export type { ConnectionTokens } from "./connection-tokens.ts";
export type { Connections } from "./connections.module.ts";
export { createConnections } from "./connections.module.ts";
export type { ConnectionsRepository } from "./connections.repository.ts";
export { createConnectionsRepository } from "./connections.repository.ts";
export { registerConnectionRoutes } from "./connections.routes.ts";
export { createOAuthStates } from "./oauth-state.ts";
export { createPlatformSignalsRepository } from "./platform-signals.repository.ts";
export { platformSignalUrls, registerPlatformSignalRoutes } from "./platform-signals.routes.ts";
export { refreshInstagramTokensJob } from "./refresh-instagram-tokens.job.ts";
