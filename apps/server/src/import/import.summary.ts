import { type ImportPlan, importItemKinds, importKindLabels } from "@keepsake/contracts/import";
import type { ExportItem } from "@keepsake/contracts/instagram-export";

type PlannedItem = ImportPlan["items"][number];

const n = (count: number, one: string, many: string) =>
  `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;

/**
 * The preview's numbers and words, from the statuses the plan just recorded (the same ones the
 * uploads obey: a `pending` item is copied, an `over_limit` or `known` one is refused). Every
 * row adds up: total = already + to import + beyond the plan.
 */
export function importSummary(a: {
  /** Items of the export Keepsake already has under another key (not recorded again). */
  skipped: ExportItem[];
  items: PlannedItem[];
  limit: number | null;
  tierLabel: string;
}): Pick<ImportPlan, "summary" | "limit_note" | "totals" | "verdict"> {
  const summary = importItemKinds.map((kind) => {
    const mine = a.items.filter((i) => i.kind === kind);
    const already =
      a.skipped.filter((i) => i.kind === kind).length +
      mine.filter((i) => i.status === "known" || i.status === "completed").length;
    const to_import = mine.filter((i) => i.status === "pending").length;
    const over_limit = mine.filter((i) => i.status === "over_limit").length;
    return {
      kind,
      label: importKindLabels[kind],
      total: already + to_import + over_limit,
      already,
      to_import,
      over_limit,
    };
  });
  const totals = {
    total: summary.reduce((s, k) => s + k.total, 0),
    already: summary.reduce((s, k) => s + k.already, 0),
    to_import: summary.reduce((s, k) => s + k.to_import, 0),
    over_limit: summary.reduce((s, k) => s + k.over_limit, 0),
  };
  const over = totals.over_limit;
  const plan = `your ${a.tierLabel} plan`;
  const limitText = a.limit === null ? "" : `limit of ${n(a.limit, "post", "posts")}`;
  const limit_note =
    a.limit === null
      ? `Your ${a.tierLabel} plan has no post limit: everything in this export can be imported.`
      : over > 0
        ? `Imported posts and stories count toward ${plan}'s ${limitText} (your newest are kept): ${n(over, "item", "items")} of this export ${over === 1 ? "is" : "are"} beyond it and will not be imported. Upgrade to import ${over === 1 ? "it" : "them"}.`
        : `Imported posts and stories count toward ${plan}'s ${limitText}; this export fits within it.`;
  let verdict: string;
  if (totals.to_import === 0 && over === 0)
    verdict = "Nothing to import: Keepsake already has everything in this export.";
  else if (totals.to_import === 0)
    verdict = `Nothing to import within ${plan}: the ${n(over, "item", "items")} Keepsake does not have yet ${over === 1 ? "is" : "are"} beyond its ${limitText} and will not be imported. Upgrade to import ${over === 1 ? "it" : "them"}.`;
  else if (over > 0)
    verdict = `${n(totals.to_import, "item", "items")} will be imported; ${n(over, "item", "items")} beyond ${plan}'s ${limitText} will not.`;
  else verdict = `${n(totals.to_import, "item", "items")} will be imported.`;
  return { summary, limit_note, totals, verdict };
}
