// The health area's public surface: what other areas and the composition root may import.

export type { FailureFacts, LostStoriesFacts } from "./health.facts.ts";
export { createHealthModule } from "./health.module.ts";
export type { HealthService } from "./health.service.ts";
export { CAUSES, dateWords, FIXES, plural } from "./health.words.ts";
