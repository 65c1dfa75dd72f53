// The comments area's public surface: what other areas and the composition root may import.
export { createCommentsModule } from "./comments.module.ts";
export type { CommentsService } from "./comments.service.ts";
export { refreshCommentsJob } from "./refresh-comments.job.ts";
