// The archive area's public surface: what other areas and the composition root may import.
export { createArchiveRepository } from "./archive.repository.ts";
export { registerArchiveRoutes } from "./archive.routes.ts";
export type { ArchiveService } from "./archive.service.ts";
export { createArchiveService } from "./archive.service.ts";
export { refreshSidecarJob, sidecarSingletonKey } from "./jobs/refresh-sidecar.job.ts";
