export * from "./auth.ts";
export * from "./connections.ts";
export * from "./sync.ts";
