// The users area's public surface: what other areas and the composition root may import.
export { createUserDeletionRepository } from "./user-deletion.repository.ts";
export type { UserDeletionService } from "./user-deletion.service.ts";
export { createUserDeletionService } from "./user-deletion.service.ts";
export { registerUserRoutes } from "./users.routes.ts";
