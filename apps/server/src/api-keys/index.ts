// The api-keys area's public surface: what other areas and the composition root may import.
export { createApiKeysRepository } from "./api-keys.repository.ts";
export { registerApiKeyRoutes } from "./api-keys.routes.ts";
export type { ApiCaller, ApiKeysService } from "./api-keys.service.ts";
export { createApiKeysService } from "./api-keys.service.ts";
