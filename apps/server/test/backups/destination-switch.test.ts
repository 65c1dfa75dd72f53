import { DEMO_IG } from "@keepsake/sandbox";
import { describe, expect, it } from "vitest";
import { backupFaultsSuite } from "../support/backup-faults.ts";
import { connectDropbox } from "../support/destination-connect.ts";
import { stored } from "../support/dropbox-destination.ts";

// Issue 38: an account backed up to Google Drive is switched to Dropbox, then back. Its history
// goes to the new destination exactly once, what is in the old one stays, and switching back
// writes nothing twice (each destination keeps its own ledger).
const suite = backupFaultsSuite();
const { pick } = suite;

/** What Drive holds of a post (its media, cover and sidecar), by the post tag. */
async function inDrive(instagramId: string) {
  const { h } = suite.get();
  return (await h.driveFiles())
    .filter((f) => !f.trashed && !f.isFolder && f.appProperties.keepsakePostId === instagramId)
    .map((f) => f.name)
    .sort();
}

const USER_FOLDER = `/Apps/Keepsake/Keepsake/@${DEMO_IG.business.username}/`;

describe("choosing where an account is backed up", () => {
  it("copies the history to Dropbox once, keeps Drive's copies, and switching back uploads nothing again", async () => {
    const { t, user } = suite.get();
    const posts = [await pick("image", 1), await pick("carousel", 0), await pick("video", 0)];
    const run = async () => {
      for (const p of posts) {
        const out = await t.ctx.backupEngine.run(p.id, { retryCount: 0, retryLimit: 3 });
        expect(out.outcome, p.instagram_id).toBe("completed");
      }
    };
    const backups = () =>
      t.ctx.db
        .selectFrom("backups")
        .select(["post_id", "status", "destination", "google_drive_url"])
        .where(
          "post_id",
          "in",
          posts.map((p) => p.id),
        )
        .execute();
    const put = (destination: string) =>
      t.call("PUT", `/api/oauth/instagram/accounts/${user.accountId}/destination`, {
        token: user.token,
        body: { destination },
      });

    // Backed up to Drive first (everyone's default).
    for (const p of posts) await t.ctx.backups.retry(user.user.id, p.id);
    await run();
    const drive = new Map<string, string[]>();
    for (const p of posts) {
      const names = await inDrive(p.instagram_id);
      expect(names.length).toBeGreaterThanOrEqual(2);
      drive.set(p.instagram_id, names);
    }

    // Dropbox is not connected yet: the switch says so and changes nothing.
    const refused = await put("dropbox");
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/Connect Dropbox/);
    await connectDropbox(t, user.token);

    const switched = await put("dropbox");
    expect(switched.status).toBe(200);
    expect(switched.body.destination).toBe("dropbox");
    expect(switched.body.posts_to_copy).toBeGreaterThanOrEqual(posts.length);
    expect(switched.body.message).toContain("now backed up to Dropbox");
    expect((await backups()).map((b) => [b.status, b.destination])).toEqual(
      posts.map(() => ["pending", "dropbox"]),
    );
    const accounts = await t.call("GET", "/api/accounts/instagram-accounts", {
      token: user.token,
    });
    expect(accounts.body.accounts.map((a: { destination: string }) => a.destination)).toEqual([
      "dropbox",
    ]);

    await run();
    const inDropbox = (await stored(t.sandbox)).files.filter((f) => f.path.startsWith(USER_FOLDER));
    for (const p of posts) {
      // Each post's media and its sidecar, once, under Keepsake/@user/YYYY.
      const mine = inDropbox.filter((f) => f.path.includes(p.instagram_id));
      expect(mine.length, p.instagram_id).toBeGreaterThanOrEqual(2);
      expect(new Set(mine.map((f) => f.path)).size).toBe(mine.length);
      expect(mine.some((f) => f.path.endsWith("_meta.json"))).toBe(true);
      // Drive keeps what it had.
      expect(await inDrive(p.instagram_id)).toEqual(drive.get(p.instagram_id));
    }
    for (const b of await backups()) {
      expect(b.status).toBe("completed");
      expect(b.destination).toBe("dropbox");
      // "View" opens the file's folder on Dropbox (the sandbox's own page here).
      expect(b.google_drive_url).toContain("/www.dropbox.com/home/Apps/Keepsake/Keepsake/@");
      const view = await fetch(b.google_drive_url as string);
      expect(view.status).toBe(200);
      expect(await view.text()).toContain("Apps/Keepsake/Keepsake/@");
    }
    const listed = await t.call("GET", "/api/sync/backups?status_filter=completed&limit=100", {
      token: user.token,
    });
    const ours = (listed.body.backups as { instagram_post_id: string; destination: string }[])
      .filter((b) => posts.some((p) => p.id === b.instagram_post_id))
      .map((b) => b.destination);
    expect(ours).toEqual(posts.map(() => "dropbox"));

    // Back to Drive: every file is recorded there already, so nothing is uploaded again.
    await suite.get().h.control("/calls", { method: "DELETE" });
    const back = await put("google_drive");
    expect(back.status).toBe(200);
    await run();
    const calls = await suite.get().h.calls();
    expect(Object.keys(calls).filter((k) => k.startsWith("drive.upload"))).toEqual([]);
    for (const p of posts) {
      expect(await inDrive(p.instagram_id)).toEqual(drive.get(p.instagram_id));
    }
    expect((await stored(t.sandbox)).files.filter((f) => f.path.startsWith(USER_FOLDER))).toEqual(
      inDropbox,
    );
    expect((await backups()).map((b) => [b.status, b.destination])).toEqual(
      posts.map(() => ["completed", "google_drive"]),
    );

    // The same choice again changes nothing; another's account is not found.
    const same = await put("google_drive");
    expect(same.body.posts_to_copy).toBe(0);
    const other = await t.signUp();
    const foreign = await t.call(
      "PUT",
      `/api/oauth/instagram/accounts/${user.accountId}/destination`,
      { token: other.token, body: { destination: "dropbox" } },
    );
    expect(foreign.status).toBe(404);
  });
});
