// The health area's public surface: what other areas and the composition root may import.
export { createHealthModule } from "./health.module.ts";
export type { HealthService } from "./health.service.ts";
