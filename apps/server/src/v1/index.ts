// The v1 area's public surface: what other areas and the composition root may import.
export { createRateLimiter } from "./rate-limit.ts";
export { apiKeyGuard } from "./v1.auth.ts";
export { registerV1Routes } from "./v1.routes.ts";
