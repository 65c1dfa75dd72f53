// `npm start`: build the web app if it is missing or stale, then run every role in one process.
import { ensureWebBuild } from "./web-build.ts";

ensureWebBuild();
process.argv.splice(2, process.argv.length, "all");
await import("../apps/server/src/main.ts");
