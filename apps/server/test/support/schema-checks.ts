import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Compile-time checks of `Database` (db/schema.ts) against the columns of a migrated database
 * (test/schema-types.test.ts): each check is one line of TypeScript that fails to compile when
 * what it says is wrong.
 */

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
export const TSC = join(ROOT, "node_modules/typescript/bin/tsc");

/** One column as information_schema tells it. */
export interface Column {
  table_name: string;
  column_name: string;
  nullable: boolean;
  data_type: string;
  udt_name: string;
  has_default: boolean;
}

/** The TypeScript type a column of this PostgreSQL type is read as (null: any, e.g. jsonb). */
function kindOf(c: Column): string | null {
  switch (c.data_type) {
    case "text":
    case "character varying":
    case "character":
    case "uuid":
    case "inet":
    case "numeric":
      return "string";
    case "smallint":
    case "integer":
    case "bigint": // int8 is parsed as a number (db/database.ts)
    case "real":
    case "double precision":
      return "number";
    case "boolean":
      return "boolean";
    case "timestamp with time zone":
    case "timestamp without time zone":
    case "date":
      return "Date";
    case "json":
    case "jsonb":
    case "ARRAY":
      return null;
    case "USER-DEFINED":
      if (c.udt_name === "citext") return "string";
  }
  throw new Error(`${c.table_name}.${c.column_name}: no kind for ${c.data_type} (${c.udt_name})`);
}

/** A compile-time condition, `true` when schema and types agree; else `says` what is wrong. */
export interface Check {
  condition: string;
  says: string;
}

/** The tables every area's tables.ts says it owns. */
export async function ownedTableNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const area of readdirSync(SRC, { withFileTypes: true })) {
    if (!area.isDirectory()) continue;
    if (!readdirSync(join(SRC, area.name)).includes("tables.ts")) continue;
    const declared = (await import(join(SRC, area.name, "tables.ts"))) as {
      ownedTables?: readonly string[];
    };
    for (const t of declared.ownedTables ?? []) names.add(t);
  }
  return names;
}

/**
 * The checks, one line each, over `Database` and `checksHeader`'s helpers: `Database` has every
 * table and no other; each row type every column of its table and no other; each column with
 * the table's nullability, of its kind, and required on insert when the table has no default
 * for it and refuses null.
 */
export function columnChecks(tables: string[], columns: Column[]): Check[] {
  const out: Check[] = [];
  const q = JSON.stringify;
  const add = (condition: string, says: string) => out.push({ condition, says });
  add(
    `[Exclude<keyof Database, ${tables.map((t) => q(t)).join(" | ")}>] extends [never] ? true : false`,
    "Database declares a table the migrated schema does not have",
  );
  for (const t of tables) {
    const cols = columns.filter((c) => c.table_name === t);
    add(
      `${q(t)} extends keyof Database ? true : false`,
      `table ${t}: no area's tables.ts declares it`,
    );
    if (cols.length === 0) continue;
    add(
      `[Exclude<keyof Tbl<${q(t)}>, ${cols.map((c) => q(c.column_name)).join(" | ")}>] extends [never] ? true : false`,
      `table ${t}: its row type declares a column the table does not have`,
    );
    for (const c of cols) {
      const name = `${t}.${c.column_name}`;
      const tc = `${q(t)}, ${q(c.column_name)}`;
      // Each helper answers "missing" for an undeclared column: only its own check reports it.
      add(`Declared<${tc}>`, `${name}: the table has it, the row type does not`);
      add(
        `Nullable<${tc}> extends ${!c.nullable} ? false : true`,
        `${name}: ${c.nullable ? "nullable in the table, not in the row type" : "NOT NULL in the table, nullable in the row type"}`,
      );
      const kind = kindOf(c);
      if (kind)
        add(
          `KindIs<${tc}, ${kind}> extends false ? false : true`,
          `${name}: the table's ${c.data_type} is read as ${kind}, the row type says otherwise`,
        );
      if (!c.nullable && !c.has_default)
        add(
          `InsertOptional<${tc}> extends true ? false : true`,
          `${name}: NOT NULL without a default, yet optional on insert in the row type`,
        );
    }
  }
  return out;
}

/** What the checks' file starts with: `Database` and the helpers the checks use. */
export const checksHeader = (schemaTs: string) => [
  `import type { Database } from ${JSON.stringify(schemaTs)};`,
  "type Tbl<T> = T extends keyof Database ? Database[T] : {};",
  "type Sel<C> = C extends { readonly __select__: infer S } ? S : C;",
  "type Ins<C> = C extends { readonly __insert__: infer I } ? I : C;",
  "type Declared<T, K> = K extends keyof Tbl<T> ? true : false;",
  'type Nullable<T, K> = K extends keyof Tbl<T> ? (null extends Sel<Tbl<T>[K]> ? true : false) : "missing";',
  'type KindIs<T, K, X> = K extends keyof Tbl<T> ? ([Exclude<Sel<Tbl<T>[K]>, null>] extends [X] ? true : false) : "missing";',
  'type InsertOptional<T, K> = K extends keyof Tbl<T> ? (undefined extends Ins<Tbl<T>[K]> ? true : false) : "missing";',
  "type Yes<X extends true> = X;",
];

/** The compiler's settings for the checks' file: the repository's, without @types lookups. */
export const tsconfigFor = (file: string) => ({
  extends: join(ROOT, "tsconfig.base.json"),
  compilerOptions: { types: [] },
  files: [file],
});
