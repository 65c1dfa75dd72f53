import { Kysely, PostgresDialect } from "kysely";
import type pg from "pg";
import type { Database } from "../../src/db/schema.ts";
import { type ListingRepository, listingQueries } from "../../src/library/listing.repository.ts";

/** One node of `EXPLAIN (FORMAT JSON)`. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Plan Rows"?: number;
  Plans?: PlanNode[];
}

export function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}

/** How each table is read in the plan: "Seq Scan", "Index Scan using posts_…", … */
export function tableAccess(nodes: PlanNode[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const n of nodes) {
    if (!n["Relation Name"]) continue;
    const bitmapIndexes = flatten(n)
      .filter((c) => c["Node Type"] === "Bitmap Index Scan")
      .map((c) => c["Index Name"]);
    const how = n["Index Name"]
      ? `${n["Node Type"]} using ${n["Index Name"]}`
      : n["Node Type"] === "Bitmap Heap Scan"
        ? `Bitmap Heap Scan using ${bitmapIndexes.join(", ")}`
        : n["Node Type"];
    const table = n["Relation Name"];
    out[table] = [...(out[table] ?? []), how];
  }
  return out;
}

export interface ExplainedQuery {
  sql: string;
  parameters: readonly unknown[];
  plan: PlanNode;
  access: Record<string, string[]>;
  /** EXPLAIN ANALYZE in text form, when asked for. */
  text?: string;
}

/**
 * Runs `fn` against a listing repository whose SQL is recorded, then explains every statement it
 * ran on `pool` (with `analyze`, also runs it again and keeps the text plan with timings).
 */
export async function explainRepository(
  pool: pg.Pool,
  fn: (repo: ListingRepository) => Promise<unknown>,
  options: { analyze?: boolean } = {},
): Promise<ExplainedQuery[]> {
  const captured: { sql: string; parameters: readonly unknown[] }[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === "query") captured.push(event.query);
    },
  });
  await fn(listingQueries(db));
  const out: ExplainedQuery[] = [];
  for (const q of captured) {
    const params = q.parameters as unknown[];
    const { rows } = await pool.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `EXPLAIN (FORMAT JSON) ${q.sql}`,
      params,
    );
    const plan = rows[0]?.["QUERY PLAN"][0]?.Plan as PlanNode;
    const entry: ExplainedQuery = {
      sql: q.sql,
      parameters: q.parameters,
      plan,
      access: tableAccess(flatten(plan)),
    };
    if (options.analyze) {
      const text = await pool.query<{ "QUERY PLAN": string }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${q.sql}`,
        params,
      );
      entry.text = text.rows.map((r) => r["QUERY PLAN"]).join("\n");
    }
    out.push(entry);
  }
  return out;
}
