// The api-keys area's public surface: what other areas and the composition root may import.
export { createApiKeysModule } from "./api-keys.module.ts";
export type { ApiCaller, ApiKeysService } from "./api-keys.service.ts";
