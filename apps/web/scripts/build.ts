/**
 * `npm run build`: the production build of the web app, then the landing page prerendered to
 * `dist/landing.html` (served for `/`), then the JavaScript each first load needs, gzipped —
 * printed, and the build fails when the landing page, the app shell or a route is over its budget
 * (issues 14 and 27).
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "vite";

// A production build whoever runs it: under the end-to-end tests NODE_ENV is "test", which Vite
// would bake into the bundle and keep the libraries' development branches (2.5 KB more).
process.env.NODE_ENV = "production";

const WEB = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(WEB, "dist");
const SSR_OUT = join(WEB, "node_modules/.prerender");
/** First-load JavaScript of `/`, gzipped. */
export const LANDING_BUDGET_BYTES = 100 * 1024;
/**
 * First-load JavaScript of the app shell (what every other route loads first) and of each
 * route's first screen, gzipped (issue 27). The shell is React, wouter, TanStack Query, the
 * fetch-based API client and the layout: no zod (answers are typed by the contracts, not parsed),
 * and the toast library loads on the first toast. A screen's later parts (the API reference of
 * /docs, Settings' tabs other than the first, the dashboard's archive panels) are not its first
 * load. Issue 27's 120 KB a route: no first screen loads zod classic (the screens take messages and
 * constants from the contracts' zod-free modules, the comment answers are checked by type
 * guards); the forms validate with zod/mini schemas and load the form libraries (the largest,
 * the account pages, about 111 KB).
 */
export const SHELL_BUDGET_BYTES = 100 * 1024;
export const ROUTE_BUDGET_BYTES = 120 * 1024;

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
}
type Manifest = Record<string, ManifestChunk>;

const gzipSize = (file: string) => gzipSync(readFileSync(join(DIST, file)), { level: 9 }).length;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

/** A chunk's file and every file it imports statically (what loads before it runs). */
function closure(manifest: Manifest, key: string, seen = new Set<string>()): Set<string> {
  const chunk = manifest[key];
  if (!chunk || seen.has(chunk.file)) return seen;
  seen.add(chunk.file);
  for (const dep of chunk.imports ?? []) closure(manifest, dep, seen);
  return seen;
}

const bytes = (files: Iterable<string>) => [...files].reduce((n, f) => n + gzipSize(f), 0);

/** The SPA shell without its module scripts, with the prerendered page and landing.js. */
function landingHtml(shell: string, body: string): string {
  return shell
    .replace(/\s*<script type="module"[^>]*><\/script>/g, "")
    .replace(/\s*<link rel="modulepreload"[^>]*>/g, "")
    .replace("</title>", '</title>\n    <script src="/landing.js"></script>')
    .replace('<div id="root"></div>', `<div id="root">${body}</div>`);
}

async function main() {
  await build({ root: WEB, logLevel: "warn", build: { manifest: true } });
  await build({
    root: WEB,
    logLevel: "warn",
    build: {
      ssr: "src/prerender.tsx",
      outDir: SSR_OUT,
      emptyOutDir: true,
      rolldownOptions: { output: { codeSplitting: false } },
    },
  });
  const { renderLanding } = (await import(pathToFileURL(join(SSR_OUT, "prerender.js")).href)) as {
    renderLanding(): string;
  };
  const shell = readFileSync(join(DIST, "index.html"), "utf8");
  const landing = landingHtml(shell, renderLanding());
  writeFileSync(join(DIST, "landing.html"), landing);
  rmSync(SSR_OUT, { recursive: true, force: true });

  const manifest = JSON.parse(readFileSync(join(DIST, ".vite/manifest.json"), "utf8")) as Manifest;
  const entryKey = Object.keys(manifest).find((k) => manifest[k]?.isEntry) as string;
  const shellFiles = closure(manifest, entryKey);
  const shellBytes = bytes(shellFiles);
  const landingScripts = [...landing.matchAll(/<script[^>]*src="\/([^"]+)"/g)].map(
    (m) => m[1] as string,
  );
  const landingBytes = bytes(landingScripts);

  const lines = [
    "First-load JavaScript, gzipped (production build):",
    `  /            ${kb(landingBytes).padStart(9)}  prerendered landing page (${landingScripts.join(", ")}); budget ${kb(LANDING_BUDGET_BYTES)}`,
    `  app shell    ${kb(shellBytes).padStart(9)}  every other route loads this, plus its screen; budget ${kb(SHELL_BUDGET_BYTES)}, each route ${kb(ROUTE_BUDGET_BYTES)}:`,
  ];
  const overBudget: string[] = [];
  for (const [key, chunk] of Object.entries(manifest)) {
    if (!chunk.isDynamicEntry || !chunk.src?.startsWith("src/pages/")) continue;
    const own = [...closure(manifest, key)].filter((f) => !shellFiles.has(f));
    const route = chunk.src.replace(/^src\/pages\/([^/]+)\/.*$/, "$1");
    // A screen's own lazy part (e.g. the API reference inside /docs) loads after the screen.
    const file = chunk.src.replace(/^src\/pages\/[^/]+\/(.*)\.tsx?$/, "$1");
    // A screen file (`…-page`), or a file of several screens (`account-pages`: /forgot-password,
    // /reset-password, /verify-email, /unsubscribe, /status/confirm).
    const screen = /-pages?$/.test(file);
    const label = screen ? `/${route}` : `/${route} ${file} (later)`;
    const routeBytes = shellBytes + bytes(own);
    lines.push(`  ${label.padEnd(12)} ${kb(routeBytes).padStart(9)}`);
    // A screen's later part (the API reference) is not part of its first load.
    if (screen && routeBytes > ROUTE_BUDGET_BYTES)
      overBudget.push(`/${route}'s first load is over ${kb(ROUTE_BUDGET_BYTES)}.`);
  }
  console.log(lines.join("\n"));
  if (landingBytes > LANDING_BUDGET_BYTES)
    overBudget.push(
      `The landing page's first-load JavaScript is over ${kb(LANDING_BUDGET_BYTES)}.`,
    );
  if (shellBytes > SHELL_BUDGET_BYTES)
    overBudget.push(`The app shell's first-load JavaScript is over ${kb(SHELL_BUDGET_BYTES)}.`);
  if (overBudget.length > 0) {
    console.error(overBudget.join("\n"));
    process.exit(1);
  }
}

await main();
