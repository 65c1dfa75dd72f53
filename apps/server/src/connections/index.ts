// The connections area's public surface: what other areas and the composition root may import.
export type { AccountProfilesService } from "./account-profiles.service.ts";
export { instagramHealth } from "./connection-rules.ts";
export type { ConnectionTokens } from "./connection-tokens.ts";
export type { ConnectionsModule } from "./connections.module.ts";
export { createConnectionsModule } from "./connections.module.ts";
export type { Connections, LostConnection } from "./connections.parts.ts";
export type { ConnectionsRepository } from "./connections.repository.ts";
export { createConnectionsRepository } from "./connections.repository.ts";
export type { ConnectedKind } from "./destination-connections.repository.ts";
export { createDestinationConnectionsRepository } from "./destination-connections.repository.ts";
export type {
  DestinationCustody,
  DestinationCustodyDeps,
  LostDestination,
} from "./destination-custody.service.ts";
export { createDestinationCustody } from "./destination-custody.service.ts";
export type { AccountChosen, DestinationState } from "./destination-state.ts";
export {
  createDestinationStates,
  destinationReconnectWords,
  notConnectedWords,
} from "./destination-state.ts";
export { platformSignalUrls } from "./platform-signals.routes.ts";
export { refreshInstagramTokensJob } from "./refresh-instagram-tokens.job.ts";
