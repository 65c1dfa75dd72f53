import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const WEB = join(ROOT, "apps/web");
const DIST_INDEX = join(WEB, "dist/index.html");
const SOURCES = [
  join(WEB, "src"),
  join(WEB, "public"),
  join(WEB, "index.html"),
  join(WEB, "vite.config.ts"),
  join(WEB, "scripts"),
  join(WEB, "package.json"),
  join(ROOT, "packages/contracts/src"),
];

export function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when the built SPA is missing or older than any of its sources. */
export function webBuildIsStale(): boolean {
  if (!existsSync(DIST_INDEX)) return true;
  const built = statSync(DIST_INDEX).mtimeMs;
  return SOURCES.some((s) => newestMtime(s) > built);
}

/** Builds the SPA with Vite when it is missing or stale. */
export function ensureWebBuild(options: { force?: boolean } = {}): void {
  if (!options.force && !webBuildIsStale()) return;
  console.log("Building the web app…");
  // The production build with the prerendered landing page (apps/web/scripts/build.ts).
  const result = spawnSync(process.execPath, [join(WEB, "scripts/build.ts")], {
    cwd: WEB,
    stdio: "inherit",
  });
  if (result.status !== 0) throw new Error("The web app failed to build");
}
