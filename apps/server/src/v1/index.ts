// The v1 area's public surface: what other areas and the composition root may import.
export type { V1Module } from "./v1.module.ts";
export { createV1Module } from "./v1.module.ts";
