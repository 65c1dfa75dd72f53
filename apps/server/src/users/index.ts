// The users area's public surface: what other areas and the composition root may import.
export type { UserDeletionService } from "./user-deletion.service.ts";
export { createUsersModule } from "./users.module.ts";
