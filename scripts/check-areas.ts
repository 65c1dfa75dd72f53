// The server's areas (apps/server/src/<area>/) must import each other without a cycle: the
// graph between areas stays a tree-like DAG. The composition root (context.ts, app-context.ts,
// job-registry.ts, runtime.ts, main.ts, cli.ts) may import every area; no area imports it.
// Type-only imports count. Exits 1 and names the cycle when there is one. Each area is imported
// from outside only through its public surface, index.ts (or its tables.ts, which belongs to the
// db/ layer here: table names and row types); the shared layers import no area.
//
// Second, every table has one owning area, and only that area's modules touch it: each area
// declares the tables it owns in apps/server/src/<area>/tables.ts (`ownedTables`). A read model
// that joins an upstream area's table (the library's lists, the sync scheduler's account
// directory, the backups' totals) declares it in `readsTables`: it may select from it, never
// write it, and only downstream (the owner never imports the reader). Every table a migration
// creates needs an owner; a Kysely call (selectFrom, insertInto, joins, ...) or raw SQL (sql`...`)
// that names another area's table, or a table no area declares, fails with the file and table.
//
// Third, transactions start only in db/transaction.ts (`inTransaction`), never by
// `.transaction()` elsewhere: it marks them, so no provider is called while one is open.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { areaDocProblems, docsProblems, longFiles, MAX_LINES } from "./area-docs.ts";
import { ROOT } from "./web-build.ts";

const SRC = join(ROOT, "apps/server/src");
const COMPOSITION = new Set([
  "context.ts",
  "app-context.ts",
  "runtime.ts",
  "main.ts",
  "cli.ts",
  "job-registry.ts",
]);

/**
 * An area's `tables.ts` (its table names and row types, which import nothing but `db/columns.ts`
 * and contracts) counts as part of `db/`: `db/schema.ts` joins them into the one `Database`
 * type every area's repositories use, and any module may name another area's row types.
 */
const areaOf = (file: string) =>
  COMPOSITION.has(file)
    ? "(composition root)"
    : /^[^/]+\/tables\.ts$/.test(file)
      ? "db"
      : (file.split("/")[0] ?? file).replace(/\.ts$/, "");

// Shared layers every area may import (README "Areas import downwards"); they import no area.
// Every other folder of src/ is an area, whose public surface is its index.ts: another area, or
// the composition root, imports that file and nothing else of it. A new area needs no entry.
const SHARED_LAYERS = new Set([
  "lib",
  "db",
  "providers",
  "http",
  "jobs",
  "config",
  "config-fields",
  "config-providers",
  "area-module",
]);
const PUBLIC_SURFACE = "index.ts";
const surfaceProblems: string[] = [];
const checkSurface = (file: string, target: string) => {
  const from = areaOf(file);
  const to = areaOf(target);
  if (from === to || SHARED_LAYERS.has(to) || to === "(composition root)") return;
  if (SHARED_LAYERS.has(from)) {
    surfaceProblems.push(`${file} (a shared layer) imports the ${to}/ area (${target})`);
  } else if (target !== `${to}/${PUBLIC_SURFACE}`) {
    surfaceProblems.push(
      `${file} imports ${target}, inside the ${to}/ area: import ${to}/${PUBLIC_SURFACE} ` +
        "(its public surface), exporting the name there if it is meant to be shared",
    );
  }
};

const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts"));
const edges = new Map<string, Map<string, string>>();
for (const file of files) {
  const from = areaOf(file);
  for (const [, spec] of readFileSync(join(SRC, file), "utf8").matchAll(/from "(\.[^"]+)"/g)) {
    const target = relative(SRC, normalize(join(SRC, dirname(file), spec as string)));
    checkSurface(file, target);
    const to = areaOf(target);
    if (/\/tables\.ts$/.test(file) && to !== "db") {
      console.error(`✘ ${file} imports ${target}: a tables.ts names only db/ and other tables`);
      process.exit(1);
    }
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
const areas = (
  readdirSync(SRC, { withFileTypes: true }) as { name: string; isDirectory(): boolean }[]
)
  .filter((d) => d.isDirectory() && !SHARED_LAYERS.has(d.name))
  .map((d) => d.name);
for (const area of areas) {
  if (!files.includes(`${area}/${PUBLIC_SURFACE}`)) {
    surfaceProblems.push(`the ${area}/ area has no public surface (${area}/${PUBLIC_SURFACE})`);
  }
}
if (surfaceProblems.length > 0) {
  for (const p of surfaceProblems) console.error(`✘ ${p}`);
  process.exit(1);
}
console.log(
  `✔ ${areas.length} server areas, no import cycle between them; each imported only through its ${PUBLIC_SURFACE}`,
);

// ---------------------------------------------------------------------------------------------
// Table ownership.

/** Schema and catalog names that are Postgres's or pg-boss's, not an area's. */
const notOurs = (name: string) => name.startsWith("pg_") || name === "information_schema";

const owner = new Map<string, string>();
const readers = new Map<string, Set<string>>();
const problems: string[] = [];
for (const area of readdirSync(SRC, { withFileTypes: true })) {
  if (!area.isDirectory()) continue;
  const file = join(SRC, area.name, "tables.ts");
  let declared: { ownedTables?: readonly string[]; readsTables?: readonly string[] };
  try {
    readFileSync(file);
  } catch {
    continue;
  }
  declared = await import(file);
  for (const table of declared.ownedTables ?? []) {
    const before = owner.get(table);
    if (before) problems.push(`table ${table} is declared by both ${before}/ and ${area.name}/`);
    owner.set(table, area.name);
  }
  for (const table of declared.readsTables ?? []) {
    if (!readers.has(table)) readers.set(table, new Set());
    readers.get(table)?.add(area.name);
  }
}

/** Whether area `from` imports area `to`, directly or through other areas. */
function importsArea(from: string, to: string, seen = new Set<string>()): boolean {
  if (seen.has(from)) return false;
  seen.add(from);
  for (const [next] of edges.get(from) ?? []) {
    if (next === to || importsArea(next, to, seen)) return true;
  }
  return false;
}

// A declared read goes downstream only: the reader may import the owner, never the other way
// round (the owner would then depend on a reader of its own rows).
let readCount = 0;
for (const [table, areas] of readers) {
  for (const area of areas) {
    readCount++;
    const own = owner.get(table);
    if (own === area) problems.push(`${area}/ declares it reads table ${table}, which it owns`);
    else if (own && importsArea(own, area))
      problems.push(
        `${area}/ reads table ${table}, but ${own}/ (its owner) imports ${area}/: ` +
          "reads go downstream only; ask the owner's service instead",
      );
  }
}

// Every table a migration creates has an owner.
const MIGRATIONS = join(SRC, "db/migrations");
const created = new Set<string>();
for (const m of readdirSync(MIGRATIONS)
  .filter((f) => f.endsWith(".sql"))
  .sort()) {
  const text = readFileSync(join(MIGRATIONS, m), "utf8");
  for (const [, name] of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)/g)) {
    created.add(name as string);
  }
  for (const [, name] of text.matchAll(/DROP TABLE (?:IF EXISTS )?([a-z_][a-z0-9_]*)/g)) {
    created.delete(name as string);
  }
}
const unowned = (table: string, where: string) =>
  `${where} names table ${table}, which no area owns: add it to ownedTables in ` +
  "apps/server/src/<owning area>/tables.ts";
for (const table of created) {
  if (!owner.has(table)) problems.push(unowned(table, "a migration"));
}
for (const table of [...owner.keys(), ...readers.keys()]) {
  if (!created.has(table)) problems.push(`tables.ts declares ${table}, which no migration creates`);
}

/** The SQL text of each sql`...` template in the source, `${...}` parts blanked. */
function sqlTemplates(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/\bsql(?:<[^`]*?>)?`/g)) {
    let i = (m.index as number) + m[0].length;
    let text = "";
    while (i < code.length && code[i] !== "`") {
      if (code[i] === "$" && code[i + 1] === "{") {
        let depth = 1;
        i += 2;
        while (i < code.length && depth > 0) {
          if (code[i] === "{") depth++;
          else if (code[i] === "}") depth--;
          i++;
        }
        text += " $$ ";
        continue;
      }
      text += code[i];
      i++;
    }
    out.push(text);
  }
  return out;
}

const stripComments = (code: string) =>
  code.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");

const KYSELY =
  /\b(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*(\[[^\]]*\]|"[^"]*")/g;
const WRITES = new Set(["insertInto", "updateTable", "deleteFrom", "mergeInto"]);
const RAW =
  /\b(DELETE FROM|INSERT INTO|UPDATE|TRUNCATE(?: TABLE)?|FROM|JOIN)\s+([a-z_][a-z0-9_.]*)\b(?!\s*\()/g;

for (const file of files) {
  if (file.startsWith("db/") || file.endsWith("/tables.ts")) continue;
  const area = COMPOSITION.has(file) ? "(composition root)" : areaOf(file);
  const code = stripComments(readFileSync(join(SRC, file), "utf8"));
  const touches: { table: string; write: boolean }[] = [];
  const ctes = new Set<string>();
  for (const [, name] of code.matchAll(/\.with\(\s*"([a-z_][a-z0-9_]*)"/g))
    ctes.add(name as string);
  for (const [, call, arg] of code.matchAll(KYSELY)) {
    for (const [, name] of (arg as string).matchAll(/"([a-z_][a-z0-9_]*)(?: as [a-z_0-9]+)?"/g)) {
      touches.push({ table: name as string, write: WRITES.has(call as string) });
    }
  }
  for (const text of sqlTemplates(code)) {
    for (const [, name] of text.matchAll(/\b([a-z_][a-z0-9_]*) AS (?:MATERIALIZED )?\(/g)) {
      ctes.add(name as string);
    }
    for (const [, verb, name] of text.matchAll(RAW)) {
      if ((name as string).includes(".")) continue;
      touches.push({ table: name as string, write: !/^(FROM|JOIN)$/.test(verb as string) });
    }
  }
  for (const { table, write } of touches) {
    if (ctes.has(table) || notOurs(table)) continue;
    const own = owner.get(table);
    if (!own) {
      problems.push(unowned(table, file));
      continue;
    }
    if (own === area) continue;
    if (!write && readers.get(table)?.has(area)) continue;
    problems.push(
      `${file} ${write ? "writes" : "reads"} table ${table}, which ${own}/ owns: ` +
        `ask ${own}/'s service (or repository, wired in context.ts) instead`,
    );
  }
}
// ---------------------------------------------------------------------------------------------
// Transactions start in one place, db/transaction.ts (`inTransaction`), which marks them so the
// provider HTTP layer, the Stripe client and SMTP refuse to call out while one is open.
const TRANSACTION_HELPER = "db/transaction.ts";
const RAW_TRANSACTION =
  /\.(transaction|startTransaction)\(\s*\)|\bsql`\s*(BEGIN|START TRANSACTION)\b/gi;
for (const file of files) {
  // The migrator runs each migration in its own transaction on a dedicated client.
  if (file === TRANSACTION_HELPER || file === "db/migrate.ts") continue;
  const code = stripComments(readFileSync(join(SRC, file), "utf8"));
  for (const [found] of code.matchAll(RAW_TRANSACTION)) {
    problems.push(
      `${file} starts a transaction itself (${found.trim()}): use inTransaction from ` +
        `${TRANSACTION_HELPER}, which marks it so no provider is called inside it`,
    );
  }
}

// The server README's areas and ownership tables name every area on disk once, as its tables.ts
// says; no README or doc has a paragraph in a table cell or a path outside the repository.
const docs = await areaDocProblems(SRC, join(ROOT, "apps/server/README.md"));
problems.push(...docs.problems, ...docsProblems(ROOT));
// No file in the code folders over MAX_LINES (issue 37): split it where it divides.
problems.push(...longFiles(ROOT));

if (problems.length > 0) {
  for (const p of [...new Set(problems)]) console.error(`✘ ${p}`);
  process.exit(1);
}
console.log(
  `✔ ${owner.size} tables, each written only by its owning area; ${readCount} declared reads, each downstream of its owner; every transaction starts in ${TRANSACTION_HELPER}; apps/server/README.md's tables name each of the ${docs.areas.length} areas once; no file over ${MAX_LINES} lines`,
);
