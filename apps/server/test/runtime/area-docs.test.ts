import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  areaDocProblems,
  areaRowProblems,
  docsProblems,
  longFiles,
  ownershipProblems,
  tableRows,
} from "../../../../scripts/area-docs.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../../..");

const readme = `
| area | what | open first |
| --- | --- | --- |
| \`auth/\` | sign-in | \`auth.service.ts\` |
| \`sync/\` | reading Instagram | \`sync.engine.ts\` |

| owner | tables | reads (select only) |
| --- | --- | --- |
| \`auth/\` | users, sessions | none |
| \`sync/\` | posts | users |
`;

describe("the server README's areas tables (scripts/area-docs.ts)", () => {
  it("reads a table's rows by its first header", () => {
    expect(tableRows(readme, "owner")).toEqual([
      ["`auth/`", "users, sessions", "none"],
      ["`sync/`", "posts", "users"],
    ]);
    expect(tableRows(readme, "nothing")).toBeNull();
  });

  it("wants every area once, and no other", () => {
    const rows = tableRows(readme, "area") ?? [];
    expect(areaRowProblems(rows, ["auth", "sync"], "areas")).toEqual([]);
    expect(areaRowProblems(rows, ["auth", "sync", "destinations"], "areas")).toEqual([
      "areas has no row for destinations/ (apps/server/src/destinations/)",
    ]);
    expect(areaRowProblems(rows, ["auth"], "areas")).toEqual([
      "areas has a row for sync/, which is no area",
    ]);
    expect(areaRowProblems([...rows, ["`auth/`", "again"]], ["auth", "sync"], "areas")).toEqual([
      "areas has 2 rows for auth/",
    ]);
    expect(areaRowProblems([["`auth/`, `sync/`", "two"]], [], "areas")).toEqual([
      'areas: the row "`auth/`, `sync/`" must name one area as `<area>/`',
    ]);
  });

  it("wants each area's tables as its tables.ts declares them", () => {
    const rows = tableRows(readme, "owner") ?? [];
    const declared = new Map([
      ["auth", { ownedTables: ["sessions", "users"] }],
      ["sync", { ownedTables: ["posts"], readsTables: ["users"] }],
    ]);
    expect(ownershipProblems(rows, declared, "owners")).toEqual([]);
    declared.set("auth", { ownedTables: ["users", "sessions", "login_failures"] });
    declared.set("sync", { ownedTables: ["posts"] });
    expect(ownershipProblems(rows, declared, "owners")).toEqual([
      "owners, auth/: owns users, sessions by the README, users, sessions, login_failures by auth/tables.ts",
      "owners, sync/: reads users by the README, none by sync/tables.ts",
    ]);
  });

  it("passes for apps/server/README.md as it is", async () => {
    const { problems, areas } = await areaDocProblems(
      join(ROOT, "apps/server/src"),
      join(ROOT, "apps/server/README.md"),
    );
    expect(problems).toEqual([]);
    expect(areas).toContain("notifications");
  });
});

describe("the docs' tables and paths (scripts/area-docs.ts)", () => {
  const root = mkdtempSync(join(tmpdir(), "keepsake-docs-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("refuses a paragraph in a table cell and a path outside the repository", () => {
    mkdirSync(join(root, "docs"));
    mkdirSync(join(root, "apps/server"), { recursive: true });
    writeFileSync(
      join(root, "README.md"),
      `| a | b |\n| --- | --- |\n| short | ${"word ".repeat(40)} |\n\nSee \`../shared/DESIGN.md\`.\n`,
    );
    writeFileSync(join(root, "apps/server/README.md"), "Up: [docs](../../docs/api.md).\n");
    writeFileSync(join(root, "docs/api.md"), "| a | `x\\|y` |\n| --- | --- |\n");
    expect(docsProblems(root)).toEqual([
      "README.md:3: a table cell of 199 characters (at most 140: one line)",
      "README.md:5: a path outside the repository (See `../shared/DESIGN.md`.)",
    ]);
  });

  it("passes for the repository's READMEs and docs", () => {
    expect(docsProblems(ROOT)).toEqual([]);
  });
});

describe("no file over 400 lines (scripts/area-docs.ts)", () => {
  it("names a tracked file of 401 lines in a code folder, not one of 400 or one elsewhere", () => {
    const root = mkdtempSync(join(tmpdir(), "keepsake-lines-"));
    try {
      const lines = (n: number) => "x\n".repeat(n);
      mkdirSync(join(root, "apps/web/src"), { recursive: true });
      mkdirSync(join(root, "docs"));
      writeFileSync(join(root, "apps/web/src/long.css"), lines(401));
      writeFileSync(join(root, "apps/web/src/fits.tsx"), lines(400));
      writeFileSync(join(root, "apps/web/src/untracked.ts"), lines(500));
      writeFileSync(join(root, "docs/long.md"), lines(900));
      execFileSync("git", ["init", "-q"], { cwd: root });
      execFileSync("git", ["add", "apps/web/src/long.css", "apps/web/src/fits.tsx", "docs"], {
        cwd: root,
      });
      expect(longFiles(root)).toEqual(["apps/web/src/long.css: 401 lines (at most 400)"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("passes for the repository", () => {
    expect(longFiles(ROOT)).toEqual([]);
  });
});
