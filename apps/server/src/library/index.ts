// The library area's public surface: what other areas and the composition root may import.
export type { CursorListingService } from "./cursor-listing.service.ts";
export type { DashboardService } from "./dashboard.service.ts";
export { createLibraryModule } from "./library.module.ts";
export type { LibraryRepositories } from "./library.repositories.ts";
export type { PostLookupsRepository } from "./post-lookups.repository.ts";
