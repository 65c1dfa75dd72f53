// The status area's public surface: what other areas and the composition root may import.
export { createCallRecorder } from "./call-stats.ts";
export { createStatusModule } from "./status.module.ts";
export { createStatusRepository } from "./status.repository.ts";
export type { StatusService } from "./status.service.ts";
export { statusSampleJob } from "./status-sample.job.ts";
