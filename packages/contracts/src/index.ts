export * from "./admin.ts";
export * from "./auth.ts";
export * from "./connections.ts";
export * from "./sync.ts";
