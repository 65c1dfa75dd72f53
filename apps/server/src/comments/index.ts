// The comments area's public surface: what other areas and the composition root may import.
export { createCommentsRepository } from "./comments.repository.ts";
export { registerCommentsRoutes } from "./comments.routes.ts";
export type { CommentsService } from "./comments.service.ts";
export { createCommentsService } from "./comments.service.ts";
export { commentsSingletonKey, refreshCommentsJob } from "./refresh-comments.job.ts";
