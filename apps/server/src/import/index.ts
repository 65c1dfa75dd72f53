// The import area's public surface: what other areas and the composition root may import.
export { createImportRepository } from "./import.repository.ts";
export { registerImportRoutes } from "./import.routes.ts";
export type { ImportService } from "./import.service.ts";
export { createImportService } from "./import.service.ts";
