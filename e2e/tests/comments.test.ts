import type { Browser } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  allowInstagram,
  connectDrive,
  connectInstagram,
  openSettings,
  registerNewUser,
  sandboxControl,
  toast,
} from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

/** The machine is shared: give the browser time before a check fails. */
const WAIT = { timeout: 20_000, interval: 200 };
/** A whole backup of the creator demo account, then its comments. */
const BACKUP_WAIT = { timeout: 240_000, interval: 1_000 };

type DriveFile = { id: string; name: string; folder: string };

describe("comments, for those who opt in", () => {
  it("opt in → after a sync the post's detail view shows its comments and Drive has its _comments.json", async () => {
    // A new photo at the top of the feed, with a comment and a reply to look for.
    const { created } = await sandboxControl<{ created: { id: string }[] }>(
      ks,
      "/instagram/posts",
      { account: "maya.creates", count: 1, media_type: "IMAGE" },
    );
    const postId = created[0]!.id;
    const comment = await sandboxControl<{ id: string }>(ks, "/instagram/comments", {
      media_id: postId,
      text: "Kept forever, thank you Keepsake",
      username: "june.reads",
    });
    await sandboxControl(ks, "/instagram/comments", {
      media_id: postId,
      text: "A reply worth keeping",
      parent_id: comment.id,
    });

    const { page } = await registerNewUser(browser, ks, "comments");
    await connectInstagram(page, ks, "maya.creates");

    // Settings → Also keep comments → Keepsake says why it leaves (issue 36) → Instagram asks
    // for the comments permission → back, told that comments are now kept.
    await openSettings(page, ks);
    const toggle = page.getByRole("checkbox", { name: "Also keep comments of @maya.creates" });
    // The box follows the server: the click asks first, then the setting, then Instagram.
    await toggle.click();
    await page
      .getByRole("dialog", { name: "Keep the comments of @maya.creates?" })
      .getByRole("button", { name: "Continue to Instagram" })
      .click();
    await allowInstagram(page, "maya.creates");
    await page.waitForURL(`${ks.url}/dashboard`);
    await expect
      .poll(() => toast(page, "Comments of @maya.creates are now kept").count(), WAIT)
      .toBe(1);
    expect(await toast(page, "Instagram account connected successfully!").count()).toBe(0);
    await openSettings(page, ks);
    await expect.poll(() => toggle.isChecked(), WAIT).toBe(true);

    // Connecting Drive starts the backup; each post's comments are read once it is in Drive.
    await connectDrive(page, ks, "maya.chen@example.com");
    await expect
      .poll(async () => {
        const { files } = await sandboxControl<{ files: DriveFile[] }>(
          ks,
          "/drive/files?email=maya.chen%40example.com",
        );
        return files.some((f) => f.name.endsWith(`_${postId}_comments.json`));
      }, BACKUP_WAIT)
      .toBe(true);
    const { files } = await sandboxControl<{ files: DriveFile[] }>(
      ks,
      "/drive/files?email=maya.chen%40example.com",
    );
    const meta = files.find((f) => f.name.endsWith(`_${postId}_meta.json`))!;
    const kept = files.find((f) => f.name.endsWith(`_${postId}_comments.json`))!;
    expect(kept.name).toBe(meta.name.replace("_meta.json", "_comments.json"));
    expect(kept.folder).toBe(meta.folder);

    // The post's detail view (its ⓘ; the newest photo comes first) shows the comment and its reply.
    await page.goto(`${ks.url}/dashboard`);
    await page
      .getByRole("button", { name: /^Details of the post from/ })
      .first()
      .click();
    const dialog = page.getByRole("dialog");
    await expect
      .poll(() => dialog.getByText("Kept forever, thank you Keepsake").count(), WAIT)
      .toBe(1);
    expect(await dialog.getByText("A reply worth keeping").count()).toBe(1);
    const ours = dialog.getByTestId("post-comment").filter({ hasText: "Kept forever" });
    expect(await ours.textContent()).toContain("@june.reads");
  });
});
