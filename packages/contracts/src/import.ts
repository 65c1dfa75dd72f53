import { z } from "zod";
import { DESTINATION_KINDS } from "./destination-kinds.ts";

/** Issue 31: Settings → Import (Instagram's data export into Drive). */
export const importItemKinds = ["story", "archived_post", "post", "reel"] as const;
export const importItemKind = z.enum(["post", "reel", "story", "archived_post"]);
export const importItemStatus = z.enum(["pending", "completed", "known", "over_limit"]);

/** Labels of the preview, in its order. */
export const importKindLabels: Record<(typeof importItemKinds)[number], string> = {
  story: "Archived stories",
  archived_post: "Archived posts",
  post: "Posts",
  reel: "Reels",
};

/**
 * What the browser sends of the export it opened: the paths of the JSON files `exportJsonPaths`
 * names and their text, compacted to what the reader reads (`compactExportJson`). The server
 * parses them itself. At most `IMPORT_PLAN_MAX_BYTES` (413 beyond).
 */
export const importPlanRequest = z.object({
  paths: z.array(z.string().max(1000)).max(1000),
  files: z.array(z.object({ path: z.string().max(1000), text: z.string() })).max(200),
});
/** The largest plan request the server reads: about 16,000 stories, or 4,000 posts with 300-character captions. */
export const IMPORT_PLAN_MAX_BYTES = 2 * 1024 * 1024;
export type ImportPlanRequest = z.infer<typeof importPlanRequest>;

export const importFile = z.object({
  key: z.string(),
  uri: z.string(),
  name: z.string(),
  media_type: z.enum(["IMAGE", "VIDEO"]),
  done: z.boolean(),
});

export const importItem = z.object({
  id: z.uuid(),
  kind: importItemKind,
  taken_at: z.string(),
  caption: z.string().nullable(),
  status: importItemStatus,
  files: z.array(importFile),
});
export type ImportItem = z.infer<typeof importItem>;

export const importKindSummary = z.object({
  kind: importItemKind,
  label: z.string(),
  total: z.number().int(),
  /** Keepsake already has it: backed up from the API, or imported before. */
  already: z.number().int(),
  to_import: z.number().int(),
  over_limit: z.number().int(),
});

export const importPlan = z.object({
  account_id: z.uuid(),
  username: z.string(),
  layout: z.enum(["old", "new"]),
  /** Where the account's backups, and so the items this import adds, go (issue 38). */
  destination: z.enum(DESTINATION_KINDS).default("google_drive"),
  first_at: z.string().nullable(),
  last_at: z.string().nullable(),
  summary: z.array(importKindSummary),
  /** What the plan's post limit means for this import (shown before it starts). */
  limit_note: z.string(),
  /** The summary's sums: what Keepsake has, what the import copies, what the plan leaves out. */
  totals: z.object({
    total: z.number().int(),
    already: z.number().int(),
    to_import: z.number().int(),
    over_limit: z.number().int(),
  }),
  /**
   * What starting the import does, in words (from the same statuses the uploads obey):
   * "Nothing to import: …" when nothing is to import, else how many go and how many do not.
   */
  verdict: z.string(),
  items: z.array(importItem),
});
export type ImportPlan = z.infer<typeof importPlan>;

export const importFileResult = z.object({
  item_id: z.uuid(),
  key: z.string(),
  drive_file_id: z.string(),
  /** The item's every file and its sidecar are in Drive. */
  item_completed: z.boolean(),
});
export type ImportFileResult = z.infer<typeof importFileResult>;
