/**
 * `npm run build:server`: the server as plain JavaScript in apps/server/dist (one ES module
 * bundle of src/ and @keepsake/contracts; packages stay in node_modules), so a production
 * process does not strip TypeScript types at start-up (issue 14: a lighter and faster-starting
 * process). `npm run api` and `npm run worker` run it (`--if-stale`: build only when a source
 * is newer than the last build). The sandbox's emulators, used only in sandbox mode, still
 * load from their TypeScript sources.
 *
 * The new build is written beside dist and then swapped in, so processes starting at the same
 * time never see a half-written directory.
 *
 * The bundler (rolldown) is a development dependency: it is loaded only when a build is needed,
 * so `--if-stale` runs in a production install (`npm prune --omit=dev`) as long as the build is
 * there, and says what to run when it is not.
 */
import { cpSync, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { newestMtime } from "../../../scripts/web-build.ts";

const SERVER = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = resolve(SERVER, "../..");
const DIST = join(SERVER, "dist");
const SOURCES = [
  join(SERVER, "src"),
  join(SERVER, "scripts/build.ts"),
  join(SERVER, "package.json"),
  join(ROOT, "packages/contracts/src"),
  join(ROOT, "sandbox/src/credentials.ts"),
];

const isFresh = () => {
  const main = join(DIST, "main.js");
  return existsSync(main) && SOURCES.every((s) => newestMtime(s) <= statSync(main).mtimeMs);
};

if (process.argv.includes("--if-stale") && isFresh()) process.exit(0);

const rolldown = await import("rolldown").catch(() => null);
if (!rolldown) {
  console.error(
    existsSync(join(DIST, "main.js"))
      ? `The server build in ${DIST} is older than its sources, and this install has no build tools (a production install, without the development dependencies).`
      : `The server is not built (${DIST} is missing), and this install has no build tools (a production install, without the development dependencies).`,
  );
  console.error(
    "Build it with the development dependencies first: npm ci && npm run build && npm run build:server, then npm prune --omit=dev (docs/operations.md, Production install).",
  );
  process.exit(1);
}

const next = `${DIST}.${process.pid}`;
rmSync(next, { recursive: true, force: true });
await rolldown.build({
  cwd: SERVER,
  input: { main: "src/main.ts", cli: "src/cli.ts" },
  platform: "node",
  // Packages load from node_modules; our own TypeScript (and the contracts) is bundled, and so
  // are the sandbox's credentials (all a worker in sandbox mode needs of the sandbox).
  external: (id) =>
    !id.startsWith(".") &&
    !id.startsWith("/") &&
    !id.startsWith("@keepsake/contracts") &&
    id !== "@keepsake/sandbox/credentials",
  output: { dir: next, format: "esm", sourcemap: true },
  logLevel: "warn",
});
// migrate.ts reads its SQL files next to the module that runs it.
cpSync(join(SERVER, "src/db/migrations"), join(next, "migrations"), { recursive: true });
const old = `${DIST}.old.${process.pid}`;
if (existsSync(DIST)) renameSync(DIST, old);
renameSync(next, DIST);
rmSync(old, { recursive: true, force: true });
console.log(`Built the server into ${DIST}`);
