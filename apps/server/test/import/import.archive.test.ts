import { readFileSync } from "node:fs";
import { DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importSummary } from "../../src/import/import.summary.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import {
  type OpenedExport,
  openExport,
  type PlanItem,
  planImport,
  putImportFile,
} from "../support/import-export.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

/**
 * Issue 36: what an import put in Drive is part of the archive (grid, /backups, counts, "from
 * your export"), and the preview's numbers and words are what the import then does.
 */
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let user: Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;

/** The demo account's export, every path and each JSON file's text as it is. */
const openRawExport = (account: string) => openExport(t, account, "", { raw: true });

const plan = (token: string, accountId: string, ex: Pick<OpenedExport, "paths" | "files">) =>
  planImport(t, token, accountId, ex);
const put = (token: string, itemId: string, key: string, body: Uint8Array) =>
  putImportFile(t, token, itemId, key, body);

beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
  user = await h.connectedUser({ tier: "pro" });
  // Keepsake knows the account's posts from the API, all in Drive already (the backup of the
  // API's posts is not what these tests are about).
  expect((await h.listPosts(user)).result.outcome).toBe("done");
  await h.leaveOnlyToBackUp(user.user.id, new Set());
}, 60_000);
afterAll(async () => {
  await t?.close();
});

interface ListedPost {
  id: string;
  instagram_id: string;
  source: string;
  media_product_type: string | null;
  caption: string | null;
  backup_status: string | null;
  is_backed_up: boolean;
}

describe("the import's preview", () => {
  it("on Free with the plan full: nothing to import within the plan, the items beyond it named, and the uploads refused as it says", async () => {
    // lumen.studio has 152 posts from the API: Free's 100 are taken by newer ones.
    await t.setTier(user.user.id, "free");
    const free = user;
    const ex = await openRawExport(DEMO_IG.business.username);
    const res = await plan(free.token, free.accountId, ex);
    expect(res.status).toBe(200);
    const items = res.body.items as PlanItem[];
    const over = items.filter((i) => i.status === "over_limit");
    expect(over.length).toBeGreaterThan(0);
    expect(res.body.totals).toEqual({
      total: (res.body.summary as { total: number }[]).reduce((n, s) => n + s.total, 0),
      already: items.filter((i) => i.status === "known").length,
      to_import: 0,
      over_limit: over.length,
    });
    for (const s of res.body.summary as {
      total: number;
      already: number;
      to_import: number;
      over_limit: number;
    }[])
      expect(s.total).toBe(s.already + s.to_import + s.over_limit);
    expect(res.body.verdict).toBe(
      `Nothing to import within your Free plan: the ${over.length} items Keepsake does not have yet are beyond its limit of 100 posts and will not be imported. Upgrade to import them.`,
    );
    expect(res.body.verdict).not.toContain("already has everything");
    // What the preview says is what the uploads do: each item beyond the plan is refused.
    for (const item of over) {
      const f = item.files[0]!;
      const refused = await put(free.token, item.id, f.key, await ex.bytes(f.uri));
      expect(refused.statusCode).toBe(409);
    }
  }, 120_000);

  it("words a mixed import: how many go, how many the plan leaves out", () => {
    const item = (kind: "story" | "post", status: "pending" | "over_limit" | "known") => ({
      id: crypto.randomUUID(),
      kind,
      taken_at: "2025-01-01T00:00:00.000Z",
      caption: null,
      status,
      files: [],
    });
    const words = importSummary({
      skipped: [],
      items: [
        item("story", "pending"),
        item("story", "over_limit"),
        item("post", "over_limit"),
        item("post", "known"),
      ],
      limit: 5000,
      tierLabel: "Premium",
    });
    expect(words.totals).toEqual({ total: 4, already: 1, to_import: 1, over_limit: 2 });
    expect(words.verdict).toBe(
      "1 item will be imported; 2 items beyond your Premium plan's limit of 5,000 posts will not.",
    );
    expect(words.limit_note).toContain(
      "2 items of this export are beyond it and will not be imported",
    );
  });
});

describe("imported items in Keepsake", () => {
  it('are posts of the account with a completed backup, "from your export": in the grid, /backups and every count', async () => {
    await t.setTier(user.user.id, "pro");
    const stats = async () =>
      (await t.call("GET", "/api/sync/dashboard/stats", { token: user.token })).body;
    const before = await stats();
    const newBefore = (await t.call("GET", "/api/sync/check-new-posts", { token: user.token }))
      .body;
    const ex = await openRawExport(DEMO_IG.business.username);
    const first = await plan(user.token, user.accountId, ex);
    const pending = (first.body.items as PlanItem[]).filter((i) => i.status === "pending");
    expect(pending.length).toBe(11);
    expect(first.body.totals).toMatchObject({ to_import: 11, over_limit: 0 });
    expect(first.body.verdict).toBe("11 items will be imported.");
    let bytes = 0;
    for (const item of pending) {
      for (const f of item.files) {
        const data = await ex.bytes(f.uri);
        bytes += data.length;
        const res = await put(user.token, item.id, f.key, data);
        expect(res.statusCode, res.body).toBe(200);
      }
    }

    // The grid: every imported item, marked, with its caption and time.
    const grid = await t.call("GET", "/api/sync/posts?limit=200", { token: user.token });
    const imported = (grid.body.posts as ListedPost[]).filter((p) => p.source === "export");
    const keys = await t.ctx.db
      .selectFrom("import_items")
      .select("item_key")
      .where("account_id", "=", user.accountId)
      .where("status", "=", "completed")
      .execute();
    expect(keys).toHaveLength(11);
    expect(imported.map((p) => p.instagram_id).sort()).toEqual(keys.map((k) => k.item_key).sort());
    expect(imported.every((p) => p.backup_status === "completed" && p.is_backed_up)).toBe(true);
    expect(imported.filter((p) => p.media_product_type === "story")).toHaveLength(8);
    expect(imported.map((p) => p.caption)).toContain("Rosé tones with Radosław at the studio 🌅");
    expect((grid.body.posts as ListedPost[]).filter((p) => p.source === "api").length).toBe(
      grid.body.total - 11,
    );

    // /backups: one completed backup each, with its Drive link and size.
    type Row = {
      google_drive_url: string | null;
      google_drive_file_id: string | null;
      backup_size_bytes: number;
      instagram_post: ListedPost;
    };
    const all: Row[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await t.call(
        "GET",
        `/api/sync/backups?status_filter=completed&limit=100&offset=${offset}`,
        { token: user.token },
      );
      expect(page.status).toBe(200);
      all.push(...page.body.backups);
      if (all.length >= page.body.total || page.body.backups.length === 0) break;
    }
    const rows = all.filter((b) => b.instagram_post.source === "export");
    expect(rows).toHaveLength(11);
    expect(rows.every((b) => b.google_drive_file_id && b.google_drive_url)).toBe(true);
    expect(rows.reduce((n, b) => n + b.backup_size_bytes, 0)).toBe(bytes);

    // The counts: 11 more posts, all in Drive; the new-posts check still compares Instagram's
    // media_count with the posts Instagram lists (archived ones are not among them).
    const after = await stats();
    expect(after.total_posts).toBe(before.total_posts + 11);
    expect(after.backed_up_posts).toBe(before.backed_up_posts + 11);
    expect(after.total_storage_used).toBe(before.total_storage_used + bytes);
    const newAfter = (await t.call("GET", "/api/sync/check-new-posts", { token: user.token })).body;
    expect(newAfter.new_posts_count).toBe(newBefore.new_posts_count);

    // A sync claims no backup for them, and the same export again recognises every one.
    const claimed = await h.syncAndDrain(user.user.id, user.accountId);
    expect(claimed.job?.status).toBe("completed");
    const still = await t.ctx.db
      .selectFrom("backups as b")
      .innerJoin("posts as p", "p.id", "b.post_id")
      .select(["b.status", "b.google_drive_file_id"])
      .where("p.source", "=", "export")
      .where("p.account_id", "=", user.accountId)
      .execute();
    expect(still).toHaveLength(11);
    expect(still.every((b) => b.status === "completed")).toBe(true);
    const again = await plan(user.token, user.accountId, ex);
    expect(again.body.totals).toMatchObject({ to_import: 0, over_limit: 0 });
    expect(again.body.verdict).toBe(
      "Nothing to import: Keepsake already has everything in this export.",
    );
  }, 240_000);
});

describe("migration 1140", () => {
  it("makes the items completed before it posts with their backups, as an import now does", async () => {
    const exported = () =>
      t.ctx.db
        .selectFrom("posts as p")
        .innerJoin("backups as b", "b.post_id", "p.id")
        .select([
          "p.instagram_id",
          "p.media_type",
          "p.media_product_type",
          "p.caption",
          "p.posted_at",
          "p.children",
          "b.status",
          "b.backup_size_bytes",
          "b.md5",
          "b.google_drive_file_id",
        ])
        .where("p.account_id", "=", user.accountId)
        .where("p.source", "=", "export")
        .orderBy("p.instagram_id")
        .execute();
    const recorded = await exported();
    expect(recorded).toHaveLength(11);
    await t.ctx.db.deleteFrom("posts").where("source", "=", "export").execute();
    expect(await exported()).toHaveLength(0);
    // The migration's own statements (the ALTERs are applied already).
    const text = readFileSync(
      new URL("../../src/db/migrations/1140_imported_posts.sql", import.meta.url),
      "utf8",
    );
    const inserts = text
      .replace(/^--.*$/gm, "")
      .split(";")
      .map((q) => q.trim())
      .filter((q) => q.startsWith("INSERT"));
    expect(inserts).toHaveLength(2);
    for (const q of inserts) await t.ctx.pool.query(q);
    expect(await exported()).toEqual(recorded);
  });
});
