// The archive area's public surface: what other areas and the composition root may import.
export { createArchiveModule } from "./archive.module.ts";
export type { ArchiveService } from "./archive.service.ts";
export { refreshSidecarJob } from "./jobs/refresh-sidecar.job.ts";
