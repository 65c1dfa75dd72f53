import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import {
  connectDrive,
  connectInstagram,
  registerNewUser,
  sandboxControl,
  seed,
} from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

/** The machine is shared: give the browser time before a check fails. */
const WAIT = { timeout: 30_000, interval: 200 };
/** The whole import: ~10 MB of stories and posts through Keepsake into the sandbox Drive. */
const IMPORT_WAIT = { timeout: 180_000, interval: 500 };

const downloads = mkdtempSync(join(tmpdir(), "keepsake-e2e-import-"));
afterAll(() => rmSync(downloads, { recursive: true, force: true }));

interface DriveFile {
  id: string;
  name: string;
  folder: string;
  isFolder: boolean;
  createdTime: string;
  modifiedTime: string;
  md5Checksum: string | null;
  appProperties: Record<string, string>;
}

/** Saves a demo account's export as the sandbox's control API serves it. */
async function saveExport(account: string, query = ""): Promise<string> {
  const res = await fetch(`${ks.sandboxUrl}/_control/instagram/${account}/export.zip${query}`);
  if (!res.ok) throw new Error(`export of ${account}: ${res.status}`);
  const path = join(downloads, `${account}${query.replace(/\W/g, "-")}.zip`);
  writeFileSync(path, Buffer.from(await res.arrayBuffer()));
  return path;
}

describe("Settings → Import", () => {
  it("refuses an HTML export and another account's export in the browser, before anything is sent", async () => {
    const { page } = await registerNewUser(browser, ks, "importrefused");
    await connectInstagram(page, ks, "maya.creates");
    const planned: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/api/import/")) planned.push(r.url());
    });
    await page.goto(`${ks.url}/settings?tab=import`);
    const input = page.getByLabel("Export ZIP for @maya.creates");
    await input.setInputFiles(await saveExport("maya.creates", "?format=html"));
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.textContent(), WAIT).toMatch(/^This is an HTML export/);
    expect(await alert.textContent()).toContain("Format: JSON");
    await input.setInputFiles(await saveExport("lumen.studio"));
    await expect
      .poll(() => alert.textContent(), WAIT)
      .toBe(
        "This export is of @lumen.studio, not @maya.creates. Choose the export of @maya.creates, or import this one from @lumen.studio's Import.",
      );
    expect(planned).toEqual([]);
  });

  it("downloads lumen.studio's data export, imports it with progress, and its archived stories land in Drive with sidecars and their original times", async () => {
    const { page, email } = await registerNewUser(browser, ks, "importer");
    await connectInstagram(page, ks, "lumen.studio");
    await connectDrive(page, ks, "jordan.lee@example.com");
    // The first sync lists the account's 152 posts and its stories (on Free, it then backs up
    // the newest 100): the grid's count, once it holds still.
    const count = page.locator(".content-count");
    const counted = async () => Number((await count.textContent())?.replace(/\D/g, "") || 0);
    let listed = 0;
    await expect
      .poll(
        async () => {
          const now = await counted();
          const still = now === listed && now >= 152;
          listed = now;
          return still;
        },
        { ...IMPORT_WAIT, interval: 1_500 },
      )
      .toBe(true);

    // Instagram's "Download your information", as the sandbox offers it on its pages.
    const instagram = await page.context().newPage();
    await instagram.goto(`${ks.sandboxUrl}/export`);
    const [download] = await Promise.all([
      instagram.waitForEvent("download"),
      instagram
        .locator("li", { hasText: "@lumen.studio" })
        .getByRole("link", { name: /JSON export/ })
        .click(),
    ]);
    const zip = join(downloads, download.suggestedFilename());
    await download.saveAs(zip);
    await instagram.close();

    // Settings → Import: the ZIP is opened in the browser and previewed before anything is sent.
    await page.goto(`${ks.url}/settings`);
    await page.getByRole("tab", { name: "Import" }).click();
    await page.waitForURL(`${ks.url}/settings?tab=import`);
    await expect.poll(() => page.getByText("Ask Instagram for your export").count(), WAIT).toBe(1);
    await page.getByLabel("Export ZIP for @lumen.studio").setInputFiles(zip);
    const stories = page.getByTestId("import-kind-story");
    await expect.poll(() => stories.count(), WAIT).toBe(1);
    const cells = async () => (await stories.locator("td").allTextContents()).map((s) => s.trim());
    // On Free, 100 newer posts from the API fill the plan: the 11 archived stories and posts
    // are beyond it, and the preview says so, not that Keepsake has everything.
    expect(await cells()).toEqual(["8", "0", "0 (8 beyond your plan)"]);
    const verdict = page.getByTestId("import-verdict");
    expect(await verdict.textContent()).toBe(
      "Nothing to import within your Free plan: the 11 items Keepsake does not have yet are beyond its limit of 100 posts and will not be imported. Upgrade to import them.",
    );
    expect(await page.getByRole("button", { name: /^Start import/ }).count()).toBe(0);

    // On Pro (set only now: Settings offers "Connect Instagram" to free and premium users, and
    // the page may have refetched the user at any moment after this change), the same export.
    await seed(ks, "setUser", { email, tier: "pro" });
    await page.getByLabel("Export ZIP for @lumen.studio").setInputFiles(zip);
    await expect.poll(() => verdict.textContent(), WAIT).toBe("11 items will be imported.");
    // Total, already in Keepsake, to import.
    expect(await cells()).toEqual(["8", "0", "8"]);
    expect(
      await page.getByTestId("import-kind-archived_post").locator("td").first().textContent(),
    ).toBe("3");
    expect(await page.getByTestId("import-range").textContent()).toMatch(/^From .+ to .+$/);
    await expect.poll(() => page.getByText(/plan has no post limit/).count(), WAIT).toBe(1);
    const driveFiles = async () =>
      (
        await sandboxControl<{ files: DriveFile[] }>(
          ks,
          `/drive/files?email=${encodeURIComponent("jordan.lee@example.com")}`,
        )
      ).files;
    const driveBefore = await driveFiles();
    expect(driveBefore.some((f) => f.folder.endsWith("/Stories"))).toBe(false);

    const start = page.getByRole("button", { name: /^Start import \(\d+ items\)$/ });
    await start.click();
    // The progress: overall, and the item in flight.
    await expect
      .poll(() => page.getByRole("progressbar", { name: "Import progress" }).count(), WAIT)
      .toBe(1);
    await expect
      .poll(() => page.getByTestId("import-status").textContent(), IMPORT_WAIT)
      .toMatch(/^Import complete: (\d+) of \1 items are in your Google Drive\.$/);
    expect(
      await page.getByRole("list", { name: "Imported" }).locator("li").count(),
    ).toBeGreaterThan(0);

    // The archived stories in the sandbox Drive: Keepsake/@lumen.studio/YYYY, where the API's
    // stories go, each with its sidecar, at the time it was posted.
    const files = await driveFiles();
    expect(files.some((f) => f.folder.endsWith("/Stories"))).toBe(false);
    const inStories = files.filter(
      (f) =>
        !f.isFolder &&
        f.name.includes("_story_") &&
        f.appProperties.keepsakeSource === "instagram-export",
    );
    const media = inStories.filter((f) => !f.name.endsWith("_meta.json"));
    const sidecars = inStories.filter((f) => f.name.endsWith("_meta.json"));
    expect(media).toHaveLength(8);
    expect(sidecars).toHaveLength(8);
    for (const f of media) {
      expect(f.name).toMatch(/^\d{4}-\d{2}-\d{2}_story_\w+\.(jpg|mp4)$/);
      expect(f.folder).toBe(`Keepsake/@lumen.studio/${f.name.slice(0, 4)}`);
      expect(f.appProperties.keepsakeSource).toBe("instagram-export");
      const sidecar = sidecars.find(
        (s) => s.appProperties.keepsakePostId === f.appProperties.keepsakePostId,
      );
      expect(sidecar, f.name).toBeDefined();
      const res = await fetch(`${ks.sandboxUrl}/drive/file/${sidecar?.id}`);
      const meta = (await res.json()) as {
        source: string;
        timestamp: string;
        username: string;
        files: { name: string; id: string }[];
      };
      expect(meta.source).toBe("instagram-export");
      expect(meta.username).toBe("lumen.studio");
      expect(meta.files).toEqual([expect.objectContaining({ name: f.name, id: f.id })]);
      // The file's own times are the story's, not the import's.
      expect(f.createdTime).toBe(meta.timestamp);
      expect(f.modifiedTime).toBe(meta.timestamp);
      expect(new Date(meta.timestamp).getTime()).toBeLessThan(Date.UTC(2026, 0, 1));
    }
    const captions = await Promise.all(
      sidecars.map(async (s) => {
        const res = await fetch(`${ks.sandboxUrl}/drive/file/${s.id}`);
        return ((await res.json()) as { caption: string | null }).caption;
      }),
    );
    expect(captions).toContain("Rosé tones with Radosław at the studio 🌅");

    // The same export chosen again: nothing left to import, nothing added to Drive.
    await page.getByRole("button", { name: "Import another export" }).click();
    await page.getByLabel("Export ZIP for @lumen.studio").setInputFiles(zip);
    await expect.poll(async () => (await cells()).join(" "), WAIT).toBe("8 8 0");
    await expect
      .poll(
        () => page.getByText(/Nothing to import: Keepsake already has everything/).count(),
        WAIT,
      )
      .toBe(1);
    // (The account's first backup from the API may still be adding its own files.)
    const imported = (list: DriveFile[]) =>
      list.filter((f) => f.appProperties.keepsakeSource === "instagram-export").length;
    expect(imported(await driveFiles())).toBe(imported(files));

    // In Keepsake: 11 more posts, each marked "From your export" (found by its caption).
    await page.goto(`${ks.url}/dashboard`);
    await expect.poll(counted, WAIT).toBe(listed + 11);
    await page.getByLabel("Search posts").fill("Rosé tones");
    const found = page.getByTestId("post-tile");
    await expect.poll(() => found.count(), WAIT).toBe(1);
    expect(await found.getByTestId("export-badge").textContent()).toBe("From your export");
  }, 420_000);
});
