// `npm test`: typecheck, lint, import cycles, then every Vitest suite (the server's on embedded
// PGlite and, when TEST_DATABASE_URL names a real PostgreSQL server, the files whose outcome can
// differ there, in the same run: apps/server/vitest.config.ts), the production smoke test, then
// the end-to-end suite in Chromium. Ends with each stage's time and the totals.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureWebBuild, ROOT } from "./web-build.ts";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const vitest = join(ROOT, "node_modules/vitest/vitest.mjs");
const reports = mkdtempSync(join(tmpdir(), "keepsake-test-"));
const totals = { passed: 0, failed: 0, skipped: 0 };
const failures: string[] = [];
const stages: { label: string; seconds: number; ok: boolean }[] = [];

function run(label: string, cmd: string, args: string[], env: Record<string, string> = {}) {
  console.log(`\n▶ ${label}`);
  const started = Date.now();
  const result = spawnSync(cmd, args, {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, ...env },
  });
  const seconds = (Date.now() - started) / 1000;
  if (result.status !== 0) failures.push(`${label} (exit ${result.status ?? result.signal})`);
  stages.push({ label, seconds, ok: result.status === 0 });
  console.log(`${result.status === 0 ? "✔" : "✘"} ${label} (${seconds.toFixed(1)}s)`);
  return result.status === 0;
}

function suite(label: string, root: string, env: Record<string, string> = {}) {
  if (!existsSync(join(ROOT, root, "vitest.config.ts"))) return;
  const out = join(reports, `${label.replace(/\W+/g, "-")}.json`);
  run(
    label,
    process.execPath,
    [
      vitest,
      "run",
      "--root",
      root,
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${out}`,
    ],
    env,
  );
  if (!existsSync(out)) {
    failures.push(`${label}: no report`);
    return;
  }
  const r = JSON.parse(readFileSync(out, "utf8"));
  totals.passed += r.numPassedTests;
  totals.failed += r.numFailedTests;
  totals.skipped += r.numPendingTests + r.numTodoTests;
  if (r.numTotalTests === 0) failures.push(`${label}: ran no test`);
}

const only = process.argv[2];
const want = (name: string) => !only || only === name;

if (want("static")) {
  run("typecheck", npm, ["run", "--silent", "typecheck"]);
  run("lint", npm, ["run", "--silent", "lint"]);
  // Type-only imports count: the import graph between modules must stay a tree.
  run("import cycles", npm, ["run", "--silent", "check:cycles"]);
}
if (want("unit")) {
  suite("contracts", "packages/contracts");
  suite("web", "apps/web");
  suite("sandbox", "sandbox");
  if (process.env.TEST_DATABASE_URL) {
    suite("server (embedded PGlite + PostgreSQL server)", "apps/server");
  } else {
    suite("server (embedded PGlite)", "apps/server");
    console.log(
      "\n(TEST_DATABASE_URL is not set: the server suite ran on embedded PGlite only, without its PostgreSQL server project)",
    );
  }
}
if (want("production")) {
  // A clean copy installed and run as production runs it (and as the Dockerfile builds it): two
  // APIs and two workers from `npm ci --omit=dev` on a fresh database of TEST_DATABASE_URL's
  // server, live mode against a standalone sandbox. Skipped (it says so) without that server.
  run("production install (smoke)", process.execPath, ["scripts/production-smoke.ts"]);
}
if (want("e2e")) {
  console.log("\n▶ build the web app for end-to-end tests");
  const started = Date.now();
  ensureWebBuild({ force: !!process.env.CI });
  stages.push({ label: "web build", seconds: (Date.now() - started) / 1000, ok: true });
  suite("end-to-end (Chromium)", "e2e");
}

rmSync(reports, { recursive: true, force: true });
console.log("\nStage times:");
const width = Math.max(...stages.map((x) => x.label.length), 5);
for (const x of stages) {
  console.log(
    `  ${x.ok ? "✔" : "✘"} ${x.label.padEnd(width)}  ${x.seconds.toFixed(1).padStart(6)} s`,
  );
}
const total = stages.reduce((sum, x) => sum + x.seconds, 0);
console.log(`    ${"total".padEnd(width)}  ${total.toFixed(1).padStart(6)} s`);
console.log("");
for (const f of failures) console.log(`✘ ${f}`);
console.log(`Tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exitCode = failures.length > 0 || totals.failed > 0 ? 1 : 0;
