// The admin area's public surface: what other areas and the composition root may import.
export { registerAdminRoutes } from "./admin.routes.ts";
export type { AdminService } from "./admin.service.ts";
export { createAdminService } from "./admin.service.ts";
