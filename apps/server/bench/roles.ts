import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The script's last command: `NAME=value …` environment assignments, then a node command. */
function lastCommand(role: "api" | "worker" | "start"): {
  env: Record<string, string>;
  args: string[];
} {
  const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts;
  const words = (String(scripts[role]).split("&&").pop() ?? "").trim().split(/\s+/);
  const env: Record<string, string> = {};
  let assignment = /^([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(words[0] ?? "");
  while (assignment) {
    env[assignment[1] as string] = assignment[2] as string;
    words.shift();
    assignment = /^([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(words[0] ?? "");
  }
  if (words.shift() !== "node") {
    throw new Error(`package.json's "${role}" script does not end in a node command`);
  }
  return { env, args: words };
}

/**
 * The node arguments of `npm start` / `npm run api|worker` (the script's last command, a node
 * command), so a benchmark measures a role exactly as it runs in production (with `roleEnv`).
 */
export function roleCommand(role: "api" | "worker" | "start"): string[] {
  return lastCommand(role).args;
}

/** The environment the script sets for that node command (the worker's `MALLOC_ARENA_MAX`). */
export function roleEnv(role: "api" | "worker" | "start"): Record<string, string> {
  return lastCommand(role).env;
}

/** What `npm run api|worker` do before they start: build the server when it is stale. */
export function buildServerIfStale(): void {
  const r = spawnSync(process.execPath, ["apps/server/scripts/build.ts", "--if-stale"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (r.status !== 0) throw new Error("npm run build:server failed");
}
