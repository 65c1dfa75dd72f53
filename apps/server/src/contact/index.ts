// The contact area's public surface: what other areas and the composition root may import.
export { createContactModule } from "./contact.module.ts";
export { createContactRepository } from "./contact.repository.ts";
export type { ContactService } from "./contact.service.ts";
