import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The node arguments of `npm run api|worker` (the command after the script's last `&& node`),
 * so a benchmark measures a role exactly as it runs in production.
 */
export function roleCommand(role: "api" | "worker"): string[] {
  const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts;
  const script = String(scripts[role]);
  const at = script.lastIndexOf("&& node ");
  if (at < 0) throw new Error(`package.json's "${role}" script does not end in a node command`);
  return script
    .slice(at + "&& node ".length)
    .trim()
    .split(/\s+/);
}

/** What `npm run api|worker` do before they start: build the server when it is stale. */
export function buildServerIfStale(): void {
  const r = spawnSync(process.execPath, ["apps/server/scripts/build.ts", "--if-stale"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (r.status !== 0) throw new Error("npm run build:server failed");
}
