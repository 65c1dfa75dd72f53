export * from "./admin.ts";
export * from "./api-keys.ts";
export * from "./auth.ts";
export * from "./connections.ts";
export * from "./site.ts";
export * from "./status.ts";
export * from "./sync.ts";
export * from "./v1.ts";
