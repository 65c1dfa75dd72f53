// The server's areas (apps/server/src/<area>/) must import each other without a cycle: the
// graph between areas stays a tree-like DAG. The composition root (context.ts, http/app.ts,
// job-registry.ts, runtime.ts, main.ts, cli.ts) may import every area; no area imports it.
// Type-only imports count. Exits 1 and names the cycle when there is one.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { ROOT } from "./web-build.ts";

const SRC = join(ROOT, "apps/server/src");
const COMPOSITION = new Set([
  "context.ts",
  "runtime.ts",
  "main.ts",
  "cli.ts",
  "http/app.ts",
  "job-registry.ts",
]);

const areaOf = (file: string) =>
  COMPOSITION.has(file) ? "(composition root)" : (file.split("/")[0] ?? file).replace(/\.ts$/, "");

const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts"));
const edges = new Map<string, Map<string, string>>();
for (const file of files) {
  const from = areaOf(file);
  for (const [, spec] of readFileSync(join(SRC, file), "utf8").matchAll(/from "(\.[^"]+)"/g)) {
    const target = relative(SRC, normalize(join(SRC, dirname(file), spec as string)));
    const to = areaOf(target);
    if (to === from) continue;
    if (to === "(composition root)") {
      console.error(`✘ ${file} imports the composition root (${target})`);
      process.exit(1);
    }
    if (!edges.has(from)) edges.set(from, new Map());
    edges.get(from)?.set(to, `${file} → ${target}`);
  }
}

const state = new Map<string, "open" | "done">();
function visit(area: string, path: string[]): string[] | null {
  state.set(area, "open");
  for (const [next] of edges.get(area) ?? []) {
    if (state.get(next) === "open") return [...path, next];
    if (!state.has(next)) {
      const found = visit(next, [...path, next]);
      if (found) return found;
    }
  }
  state.set(area, "done");
  return null;
}
for (const area of edges.keys()) {
  if (state.has(area)) continue;
  const path = visit(area, [area]);
  if (path) {
    const cycle = path.slice(path.indexOf(path[path.length - 1] as string));
    console.error(`✘ the server's areas import in a circle: ${cycle.join(" → ")}`);
    for (let i = 0; i + 1 < cycle.length; i++) {
      console.error(`   ${edges.get(cycle[i] as string)?.get(cycle[i + 1] as string)}`);
    }
    process.exit(1);
  }
}
console.log(`✔ ${edges.size} server areas, no import cycle between them`);
