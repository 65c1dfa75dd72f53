export * from "./admin.ts";
export * from "./auth.ts";
export * from "./billing.ts";
export * from "./connections.ts";
export * from "./site.ts";
export * from "./status.ts";
export * from "./sync.ts";
