import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The node arguments of `npm start` / `npm run api|worker` (the script's last command, a node
 * command), so a benchmark measures a role exactly as it runs in production.
 */
export function roleCommand(role: "api" | "worker" | "start"): string[] {
  const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts;
  const last = String(scripts[role]).split("&&").pop()?.trim() ?? "";
  if (!last.startsWith("node ")) {
    throw new Error(`package.json's "${role}" script does not end in a node command`);
  }
  return last.slice("node ".length).trim().split(/\s+/);
}

/** What `npm run api|worker` do before they start: build the server when it is stale. */
export function buildServerIfStale(): void {
  const r = spawnSync(process.execPath, ["apps/server/scripts/build.ts", "--if-stale"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (r.status !== 0) throw new Error("npm run build:server failed");
}
