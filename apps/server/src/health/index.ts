// The health area's public surface: what other areas and the composition root may import.
export { registerHealthStateRoutes } from "./health.routes.ts";
export type { HealthService } from "./health.service.ts";
export { createHealthService } from "./health.service.ts";
