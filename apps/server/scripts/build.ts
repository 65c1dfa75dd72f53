/**
 * `npm run build:server`: the server as plain JavaScript in apps/server/dist (one ES module
 * bundle of src/ and @keepsake/contracts; packages stay in node_modules), so a production
 * process does not strip TypeScript types at start-up (issue 14: about 17 MiB of resident
 * memory for Node's type stripper, and the time to strip every file). Run it with
 * `node apps/server/dist/main.js api|worker|all`; the sandbox, used only in sandbox mode, is
 * still loaded from its TypeScript sources.
 */
import { cpSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const SERVER = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(SERVER, "dist");

rmSync(DIST, { recursive: true, force: true });
await build({
  cwd: SERVER,
  input: { main: "src/main.ts", cli: "src/cli.ts" },
  platform: "node",
  // Packages load from node_modules; our own TypeScript (and the contracts) is bundled.
  external: (id) =>
    !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("@keepsake/contracts"),
  output: { dir: DIST, format: "esm", sourcemap: true },
  logLevel: "warn",
});
// migrate.ts reads its SQL files next to the module that runs it.
cpSync(join(SERVER, "src/db/migrations"), join(DIST, "migrations"), { recursive: true });
console.log(`Built the server into ${DIST}`);
