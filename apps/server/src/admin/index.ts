// The admin area's public surface: what other areas and the composition root may import.
export { createAdminModule } from "./admin.module.ts";
export type { AdminService } from "./admin.service.ts";
