// `npm test`: typecheck, lint, import cycles, then every Vitest suite (the server's once, on the
// PostgreSQL server of TEST_DATABASE_URL when it is set, else on an embedded PostgreSQL started
// for the run: apps/server/vitest.config.ts) with the production smoke test
// running alongside the server suite (it mostly installs and waits), then the end-to-end suite in
// Chromium. Ends with each stage's time, the wall-clock total and the test totals.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureWebBuild, ROOT } from "./web-build.ts";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const vitest = join(ROOT, "node_modules/vitest/vitest.mjs");
const reports = mkdtempSync(join(tmpdir(), "keepsake-test-"));
const totals = { passed: 0, failed: 0, skipped: 0 };
const failures: string[] = [];
const failedTests: string[] = [];
const stages: { label: string; seconds: number; ok: boolean }[] = [];
const began = Date.now();

/**
 * Runs a stage. Its output goes to this terminal as it comes, or with `alongside` (a stage that
 * runs while another one does) to a file printed whole when it ends.
 */
async function run(
  label: string,
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
  options: { alongside?: boolean } = {},
): Promise<boolean> {
  if (!options.alongside) console.log(`\n▶ ${label}`);
  const log = join(reports, `${label.replace(/\W+/g, "-")}.log`);
  const fd = options.alongside ? openSync(log, "w") : null;
  const started = Date.now();
  const child = spawn(cmd, args, {
    cwd: ROOT,
    stdio: fd === null ? "inherit" : ["ignore", fd, fd],
    env: { ...process.env, ...env },
  });
  if (fd !== null) closeSync(fd);
  const status = await new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "?")),
  );
  const seconds = (Date.now() - started) / 1000;
  if (fd !== null) {
    console.log(`\n▶ ${label} (ran alongside other stages)`);
    process.stdout.write(readFileSync(log, "utf8"));
  }
  if (status !== 0) failures.push(`${label} (exit ${status})`);
  stages.push({ label, seconds, ok: status === 0 });
  console.log(`${status === 0 ? "✔" : "✘"} ${label} (${seconds.toFixed(1)}s)`);
  return status === 0;
}

async function suite(label: string, root: string, env: Record<string, string> = {}) {
  if (!existsSync(join(ROOT, root, "vitest.config.ts"))) return;
  const out = join(reports, `${label.replace(/\W+/g, "-")}.json`);
  await run(
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
  // The failed tests by name, with the first line of their message, for the summary at the end
  // (a CI log is often read from its tail).
  for (const file of r.testResults ?? []) {
    for (const t of file.assertionResults ?? []) {
      if (t.status !== "failed") continue;
      const why = String(t.failureMessages?.[0] ?? "")
        .split("\n", 1)
        .join("")
        .slice(0, 300);
      failedTests.push(
        `${label}: ${file.name.replace(`${ROOT}/`, "")} › ${t.fullName}\n      ${why}`,
      );
    }
    if (
      file.status === "failed" &&
      !(file.assertionResults ?? []).some((t: { status: string }) => t.status === "failed")
    ) {
      failedTests.push(
        `${label}: ${file.name.replace(`${ROOT}/`, "")} failed outside a test\n      ${String(
          file.message ?? "",
        )
          .split("\n", 1)
          .join("")
          .slice(0, 300)}`,
      );
    }
  }
  if (r.numTotalTests === 0) failures.push(`${label}: ran no test`);
}

const only = process.argv[2];
const want = (name: string) => !only || only === name;

// The static checks run alongside the small suites (contracts, web, sandbox) when both are asked
// for: the type checker is one busy core, the suites mostly the other.
const staticChecks = async () => {
  if (!want("static")) return;
  const alongside = { alongside: want("unit") };
  await run("typecheck", npm, ["run", "--silent", "typecheck"], {}, alongside);
  await run("lint", npm, ["run", "--silent", "lint"], {}, alongside);
  // Type-only imports count: the import graph between modules must stay a tree.
  await run("import cycles", npm, ["run", "--silent", "check:cycles"], {}, alongside);
};
const checked = staticChecks();
// A clean copy installed and run as production runs it (and as the Dockerfile builds it): two
// APIs and two workers from a production install (`npm prune --omit=dev`) on a fresh database of TEST_DATABASE_URL's
// server, live mode against a standalone sandbox. Skipped (it says so) without that server.
const smoke = () =>
  run(
    "production install (smoke)",
    process.execPath,
    ["scripts/production-smoke.ts"],
    {},
    {
      alongside: want("unit"),
    },
  );
if (want("unit")) {
  await suite("contracts", "packages/contracts");
  await suite("web", "apps/web");
  await suite("sandbox", "sandbox");
  await checked;
  const smoked = want("production") ? smoke() : Promise.resolve(true);
  await suite(
    process.env.TEST_DATABASE_URL
      ? "server (PostgreSQL server of TEST_DATABASE_URL)"
      : "server (embedded PostgreSQL)",
    "apps/server",
  );
  await smoked;
} else if (want("production")) {
  await smoke();
}
await checked;
if (want("e2e")) {
  console.log("\n▶ build the web app for end-to-end tests");
  const started = Date.now();
  ensureWebBuild({ force: !!process.env.CI });
  stages.push({ label: "web build", seconds: (Date.now() - started) / 1000, ok: true });
  await suite("end-to-end (Chromium)", "e2e");
}

rmSync(reports, { recursive: true, force: true });
console.log("\nStage times:");
const width = Math.max(...stages.map((x) => x.label.length), "total (wall clock)".length);
for (const x of stages) {
  console.log(
    `  ${x.ok ? "✔" : "✘"} ${x.label.padEnd(width)}  ${x.seconds.toFixed(1).padStart(6)} s`,
  );
}
const wall = (Date.now() - began) / 1000;
console.log(`    ${"total (wall clock)".padEnd(width)}  ${wall.toFixed(1).padStart(6)} s`);
console.log("");
for (const f of failedTests) console.log(`✘ ${f}`);
for (const f of failures) console.log(`✘ ${f}`);
console.log(`Tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exitCode = failures.length > 0 || totals.failed > 0 ? 1 : 0;
