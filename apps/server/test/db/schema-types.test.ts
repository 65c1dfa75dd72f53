import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDatabase } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import {
  type Check,
  type Column,
  checksHeader,
  columnChecks,
  ownedTableNames,
  TSC,
  tsconfigFor,
} from "../support/schema-checks.ts";

/**
 * The row types each area declares in its tables.ts (joined in db/schema.ts's `Database`) are
 * the only statement of the tables besides the migrations: this compares the two. A fresh
 * database is migrated; every table and column it has is turned into compile-time checks against
 * `Database` (the table and column exist, no column is declared that the table lacks, the
 * nullability is the same, the kind — text, number, boolean, timestamp — matches, and a NOT NULL
 * column without a default is not optional on insert), and the TypeScript compiler runs them.
 */

const SCHEMA_TS = fileURLToPath(new URL("../../src/db/schema.ts", import.meta.url));

let tdb: TestDatabase;
let columns: Column[];

beforeAll(async () => {
  tdb = await createTestDatabase();
  const handle = connectDatabase({ url: tdb.url });
  try {
    await migrate(handle.pool);
    const { rows } = await handle.pool.query<Column>(
      `SELECT c.table_name, c.column_name, c.is_nullable = 'YES' AS nullable,
              c.data_type, c.udt_name,
              (c.column_default IS NOT NULL OR c.is_identity = 'YES'
                OR c.is_generated = 'ALWAYS') AS has_default
         FROM information_schema.columns c
         JOIN information_schema.tables t
           ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
          AND c.table_name <> 'schema_migrations'
        ORDER BY c.table_name, c.ordinal_position`,
    );
    columns = rows;
  } finally {
    await handle.close();
  }
});

afterAll(async () => {
  await tdb?.close();
});

/** Runs the compiler over the checks; answers the description of each check that failed. */
async function failedChecks(checks: Check[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "keepsake-schema-types-"));
  try {
    const header = checksHeader(SCHEMA_TS);
    const lines = [...header, ...checks.map((c, i) => `type Check${i} = Yes<${c.condition}>;`)];
    writeFileSync(join(dir, "checks.mts"), `${lines.join("\n")}\n`);
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfigFor("checks.mts")));
    const out = await promisify(execFile)(process.execPath, [TSC, "-p", dir], {
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      (r) => r.stdout,
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    const failed = new Set<string>();
    for (const [, line] of out.matchAll(/checks\.mts\((\d+),\d+\): error/g)) {
      const check = checks[Number(line) - 1 - header.length];
      failed.add(check ? check.says : `the checks' header: ${out}`);
    }
    if (failed.size === 0 && /error/.test(out)) failed.add(out);
    return [...failed];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the declared row types and the migrated schema", () => {
  it("declare the same tables, columns, nullability and kinds", async () => {
    expect(columns.length).toBeGreaterThan(300);
    const tables = [...new Set(columns.map((c) => c.table_name))];
    expect([...(await ownedTableNames())].sort()).toEqual(tables.sort());

    // A canary the checks must catch: a column the types say is nullable, read as NOT NULL.
    const fullName = columns.find((c) => c.table_name === "users" && c.column_name === "full_name");
    expect(fullName?.nullable).toBe(true);
    const canary = columnChecks(tables, [{ ...(fullName as Column), nullable: false }]).filter(
      (c) => c.says.includes("nullable"),
    );

    const failed = await failedChecks([...columnChecks(tables, columns), ...canary]);
    expect(failed).toEqual(canary.map((c) => c.says));
  }, 60_000);
});
