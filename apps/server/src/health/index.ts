// The health area's public surface: what other areas and the composition root may import.
export { createHealthModule } from "./health.module.ts";
export type { FailureFacts } from "./health.rules.ts";
export type { HealthService } from "./health.service.ts";
export { CAUSES, dateWords, FIXES, plural } from "./health.words.ts";
