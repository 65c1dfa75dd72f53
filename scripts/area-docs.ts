// The server README's two tables against the code (run by check-areas.ts, in `npm run
// check:cycles`). The areas are the folders of apps/server/src as they are on disk, so a new area
// fails here until both tables have its row:
// - "Areas": one row per area, its first cell exactly `<area>/`;
// - "Tables and their owners": one row per area, the tables it owns and the tables it reads,
//   each a comma list that is the same set as its tables.ts (`ownedTables`, `readsTables`), or
//   "none".
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The cells of a markdown table row, trimmed; an escaped `\|` stays inside its cell. */
export const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||(?<!\\)\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

/** The rows of the first markdown table whose header's first cell is `firstHeader`. */
export function tableRows(markdown: string, firstHeader: string): string[][] | null {
  const lines = markdown.split("\n");
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i] as string;
    if (!line.startsWith("|") || !/^\|\s*-/.test(lines[i + 1] as string)) continue;
    if (cells(line)[0] !== firstHeader) continue;
    const rows: string[][] = [];
    for (let j = i + 2; j < lines.length && (lines[j] as string).startsWith("|"); j++) {
      rows.push(cells(lines[j] as string));
    }
    return rows;
  }
  return null;
}

/** The table names of a cell: a comma list of snake_case names, or "none" / "—". */
const namesIn = (cell: string) =>
  /^(none|—|-)?$/.test(cell.trim())
    ? []
    : cell.split(",").map((n) => n.trim().replace(/^`|`$/g, ""));

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x) => b.includes(x));

/**
 * What is wrong with one areas table: each area of `areas` named once, as `<area>/`, in the
 * first cell of a row, and no other name.
 */
export function areaRowProblems(rows: string[][], areas: readonly string[], table: string) {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    const m = /^`([a-z0-9-]+)\/`$/.exec(row[0] ?? "");
    if (!m) {
      problems.push(`${table}: the row "${row[0]}" must name one area as \`<area>/\``);
      continue;
    }
    seen.set(m[1] as string, (seen.get(m[1] as string) ?? 0) + 1);
  }
  for (const area of areas) {
    const n = seen.get(area) ?? 0;
    if (n === 0) problems.push(`${table} has no row for ${area}/ (apps/server/src/${area}/)`);
    if (n > 1) problems.push(`${table} has ${n} rows for ${area}/`);
  }
  for (const name of seen.keys()) {
    if (!areas.includes(name)) problems.push(`${table} has a row for ${name}/, which is no area`);
  }
  return problems;
}

export interface DeclaredTables {
  ownedTables?: readonly string[];
  readsTables?: readonly string[];
}

/** What the ownership table says differently from the areas' tables.ts. */
export function ownershipProblems(
  rows: string[][],
  declared: ReadonlyMap<string, DeclaredTables>,
  table: string,
) {
  const problems: string[] = [];
  for (const row of rows) {
    const area = /^`([a-z0-9-]+)\/`$/.exec(row[0] ?? "")?.[1];
    if (!area) continue;
    const said = { owns: namesIn(row[1] ?? ""), reads: namesIn(row[2] ?? "") };
    const has = declared.get(area) ?? {};
    const owns = [...(has.ownedTables ?? [])];
    const reads = [...(has.readsTables ?? [])];
    if (!sameSet(said.owns, owns))
      problems.push(
        `${table}, ${area}/: owns ${said.owns.join(", ") || "none"} by the README, ` +
          `${owns.join(", ") || "none"} by ${area}/tables.ts`,
      );
    if (!sameSet(said.reads, reads))
      problems.push(
        `${table}, ${area}/: reads ${said.reads.join(", ") || "none"} by the README, ` +
          `${reads.join(", ") || "none"} by ${area}/tables.ts`,
      );
  }
  return problems;
}

/** Checks apps/server/README.md's tables against the areas under `src`; the areas checked. */
export async function areaDocProblems(
  src: string,
  readmePath: string,
): Promise<{ problems: string[]; areas: string[] }> {
  const areas = readdirSync(src, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const declared = new Map<string, DeclaredTables>();
  for (const area of areas) {
    const file = join(src, area, "tables.ts");
    if (existsSync(file)) declared.set(area, (await import(file)) as DeclaredTables);
  }
  const readme = readFileSync(readmePath, "utf8");
  const problems: string[] = [];
  const areaTable = tableRows(readme, "area");
  const ownerTable = tableRows(readme, "owner");
  if (!areaTable) problems.push(`${readmePath} has no areas table (header "| area | …")`);
  else problems.push(...areaRowProblems(areaTable, areas, "the areas table"));
  if (!ownerTable) problems.push(`${readmePath} has no ownership table (header "| owner | …")`);
  else {
    problems.push(...areaRowProblems(ownerTable, areas, "the ownership table"));
    problems.push(...ownershipProblems(ownerTable, declared, "the ownership table"));
  }
  return { problems: problems.map((p) => `apps/server/README.md: ${p}`), areas };
}

/** The markdown a newcomer reads: the READMEs and docs/. */
export function docFiles(root: string): string[] {
  const out = ["README.md", "apps/server/README.md", "apps/web/README.md", "sandbox/README.md"];
  out.push("apps/server/src/connections/README.md");
  if (existsSync(join(root, "docs"))) {
    for (const f of readdirSync(join(root, "docs"))) if (f.endsWith(".md")) out.push(`docs/${f}`);
  }
  return out.filter((f) => existsSync(join(root, f)));
}

/** Longest table cell a README or doc may have: a cell is one line, never a paragraph. */
export const MAX_CELL = 140;

/**
 * Every table cell at most MAX_CELL characters, and no path that leaves the repository
 * (`../shared/…`): a clone holds everything its docs point at.
 */
export function docsProblems(root: string): string[] {
  const problems: string[] = [];
  for (const file of docFiles(root)) {
    const lines = readFileSync(join(root, file), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (line.startsWith("|")) {
        const long = cells(line).find((c) => c.length > MAX_CELL);
        if (long)
          problems.push(
            `${file}:${i + 1}: a table cell of ${long.length} characters (at most ${MAX_CELL}: one line)`,
          );
      }
      for (const m of line.matchAll(/(?:^|[\s`(])((?:\.\.\/)+)[\w.-]/g)) {
        const depth = file.split("/").length - 1;
        if ((m[1] as string).length / 3 > depth)
          problems.push(`${file}:${i + 1}: a path outside the repository (${line.trim()})`);
      }
    });
  }
  return problems;
}

/** Longest file the project keeps in its code folders: source, styles, tests and READMEs alike. */
export const MAX_LINES = 400;

/** Tracked files in apps/, packages/, sandbox/, scripts/ and e2e/ longer than MAX_LINES. */
export function longFiles(root: string): string[] {
  const listed = execFileSync(
    "git",
    ["ls-files", "-z", "apps", "packages", "sandbox", "scripts", "e2e"],
    { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const problems: string[] = [];
  for (const file of listed.split("\0")) {
    if (!file || !/\.(tsx?|css|md|html|json|sh|ya?ml)$/.test(file)) continue;
    if (!existsSync(join(root, file))) continue; // deleted, not yet committed
    const lines = readFileSync(join(root, file), "utf8").split("\n").length - 1;
    if (lines > MAX_LINES) problems.push(`${file}: ${lines} lines (at most ${MAX_LINES})`);
  }
  return problems;
}
