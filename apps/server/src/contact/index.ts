// The contact area's public surface: what other areas and the composition root may import.
export { createContactRepository } from "./contact.repository.ts";
export { registerContactRoutes } from "./contact.routes.ts";
export type { ContactService } from "./contact.service.ts";
export { createContactService } from "./contact.service.ts";
