// The import area's public surface: what other areas and the composition root may import.
export { createImportModule } from "./import.module.ts";
export type { ImportService } from "./import.service.ts";
