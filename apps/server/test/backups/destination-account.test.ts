import { readFileSync } from "node:fs";
import { DEMO_DROPBOX, DEMO_GOOGLE, DEMO_IG, SANDBOX_CREDENTIALS } from "@keepsake/sandbox";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { backupFaultsSuite } from "../support/backup-faults.ts";
import { chooseDestination, connectDropbox } from "../support/destination-connect.ts";
import { control } from "../support/destinations.ts";

// Issue 38: a destination connected again as another account (another Google account, another
// Dropbox account) is another place. What was backed up into the first account is copied into
// the new one exactly once; the first keeps its files; connecting the first account again finds
// what was written there and uploads nothing twice; reconnecting the same account changes
// nothing.
const suite = backupFaultsSuite();
const { pick } = suite;

describe("connecting a destination again as another account", () => {
  /** The picked posts, backed up through the engine as the workers would. */
  async function posts() {
    return [await pick("image", 2), await pick("carousel", 1), await pick("video", 1)];
  }
  const backups = (ids: string[]) =>
    suite
      .get()
      .t.ctx.db.selectFrom("backups")
      .select(["post_id", "status", "destination", "owner"])
      .where("post_id", "in", ids)
      .orderBy("post_id")
      .execute();
  async function run(ids: string[]) {
    const { t } = suite.get();
    for (const id of ids) {
      const out = await t.ctx.backupEngine.run(id, { retryCount: 0, retryLimit: 3 });
      expect(out.outcome, id).toBe("completed");
    }
  }
  /** What a Google account's Drive holds of the posts: each file's name, by media tag. */
  async function inDrive(email: string, instagramIds: string[]) {
    const files = (await suite.get().h.driveFiles(email)).filter(
      (f) =>
        !f.trashed && !f.isFolder && instagramIds.includes(f.appProperties.keepsakePostId ?? ""),
    );
    return files.map((f) => f.name).sort();
  }

  it("copies the Drive history into the other Google account once; the first account's files stay and are found again", async () => {
    const { t, h, user } = suite.get();
    const picked = await posts();
    const ids = picked.map((p) => p.id);
    const igIds = picked.map((p) => p.instagram_id);
    for (const id of ids) await t.ctx.backups.retry(user.user.id, id);
    await run(ids);
    const jordan = await inDrive(DEMO_GOOGLE.jordan.email, igIds);
    expect(jordan.length).toBeGreaterThanOrEqual(picked.length * 2);
    expect(new Set(jordan).size).toBe(jordan.length);
    expect((await backups(ids)).map((b) => [b.status, b.owner])).toEqual(
      ids.map(() => ["completed", DEMO_GOOGLE.jordan.sub]),
    );

    // Maya's Google account: the backups are pending again, to be copied into her Drive.
    await t.connectDrive(user.token, DEMO_GOOGLE.maya.sub);
    expect((await backups(ids)).map((b) => [b.status, b.owner])).toEqual(
      ids.map(() => ["pending", ""]),
    );
    // The comments file and a sidecar rewrite wait for the copy (the old sidecar is elsewhere).
    expect(await t.ctx.backupEngine.refreshSidecar(user.accountId, picked[0]!.instagram_id)).toBe(
      "not_backed_up",
    );
    await run(ids);
    const maya = await inDrive(DEMO_GOOGLE.maya.email, igIds);
    expect(maya).toEqual(jordan);
    expect(await inDrive(DEMO_GOOGLE.jordan.email, igIds)).toEqual(jordan);
    expect((await backups(ids)).map((b) => [b.status, b.owner])).toEqual(
      ids.map(() => ["completed", DEMO_GOOGLE.maya.sub]),
    );
    expect(await t.ctx.backupEngine.refreshSidecar(user.accountId, picked[0]!.instagram_id)).toBe(
      "rewritten",
    );

    // Jordan's again: every file is recorded there, so nothing is uploaded twice.
    await h.control("/calls", { method: "DELETE" });
    await t.connectDrive(user.token, DEMO_GOOGLE.jordan.sub);
    expect((await backups(ids)).map((b) => b.status)).toEqual(ids.map(() => "pending"));
    await run(ids);
    expect(Object.keys(await h.calls()).filter((k) => k.startsWith("drive.upload"))).toEqual([]);
    expect(await inDrive(DEMO_GOOGLE.jordan.email, igIds)).toEqual(jordan);
    expect(await inDrive(DEMO_GOOGLE.maya.email, igIds)).toEqual(maya);
    expect((await backups(ids)).map((b) => [b.status, b.owner])).toEqual(
      ids.map(() => ["completed", DEMO_GOOGLE.jordan.sub]),
    );

    // The same account once more: nothing changes.
    await t.connectDrive(user.token, DEMO_GOOGLE.jordan.sub);
    expect((await backups(ids)).map((b) => b.status)).toEqual(ids.map(() => "completed"));
  });

  it("a backup running while Drive is connected as another account loses its lease and is copied there", async () => {
    const { t, user } = suite.get();
    const post = await pick("image", 3);
    await t.ctx.backups.retry(user.user.id, post.id);
    // Claimed by a worker (its lease), then the account changes under it.
    const lease = "5d1d7a3e-0000-4000-8000-000000000001";
    await t.ctx.db
      .updateTable("backups")
      .set({
        status: "processing",
        lease_token: lease,
        lease_expires_at: new Date(Date.now() + 60_000),
      })
      .where("post_id", "=", post.id)
      .execute();
    await t.connectDrive(user.token, DEMO_GOOGLE.maya.sub);
    const [b] = await backups([post.id]);
    expect(b?.status).toBe("pending");
    const leased = await t.ctx.db
      .selectFrom("backups")
      .select("lease_token")
      .where("post_id", "=", post.id)
      .executeTakeFirstOrThrow();
    expect(leased.lease_token).toBeNull();
    // The worker that held it can no longer record an outcome.
    const [row] = await t.ctx.db
      .selectFrom("backups")
      .select("id")
      .where("post_id", "=", post.id)
      .execute();
    expect(
      await t.ctx.syncRepos.backups.finishBackup(row!.id, lease, {
        status: "completed",
        error_message: null,
        now: new Date(),
      }),
    ).toBeUndefined();
    await run([post.id]);
    expect(await inDrive(DEMO_GOOGLE.maya.email, [post.instagram_id])).not.toEqual([]);
    await t.connectDrive(user.token, DEMO_GOOGLE.jordan.sub);
  });

  it("migration 1220 gives the backups and records made before it the account connected then", async () => {
    const { t, user } = suite.get();
    const db = t.ctx.db;
    // The first test's posts, completed in Jordan's Drive again (nothing is uploaded: found).
    const picked = await posts();
    await run(picked.map((p) => p.id));
    const mine = db.selectFrom("backups").select("id").where("user_id", "=", user.user.id);
    // As before the migration: one record per item (the current account's), no owners.
    await db
      .deleteFrom("backup_files")
      .where("backup_id", "in", mine)
      .where("owner", "<>", DEMO_GOOGLE.jordan.sub)
      .execute();
    await db
      .updateTable("backup_files")
      .set({ owner: "" })
      .where("backup_id", "in", mine)
      .execute();
    await db
      .updateTable("backups")
      .set({ owner: "" })
      .where("user_id", "=", user.user.id)
      .execute();
    const before = await db
      .selectFrom("backups")
      .select(["id", "destination", "status"])
      .where("user_id", "=", user.user.id)
      .where("status", "=", "completed")
      .execute();
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(new Set(before.map((b) => b.destination))).toEqual(new Set(["google_drive"]));

    const migration = readFileSync(
      new URL("../../src/db/migrations/1220_destination_owner.sql", import.meta.url),
      "utf8",
    );
    const backfill = migration
      .replace(/--.*$/gm, "")
      .split(";")
      .map((x) => x.trim())
      .filter((x) => x.startsWith("UPDATE"));
    expect(backfill.length).toBe(6);
    for (const statement of backfill) await sql.raw(statement).execute(db);

    const after = await db
      .selectFrom("backups")
      .select(["id", "destination", "owner"])
      .where(
        "id",
        "in",
        before.map((b) => b.id),
      )
      .execute();
    expect(after.map((b) => b.owner)).toEqual(after.map(() => DEMO_GOOGLE.jordan.sub));
    const files = await db
      .selectFrom("backup_files as f")
      .innerJoin("backups as b", "b.id", "f.backup_id")
      .select(["f.owner", "b.owner as backupOwner"])
      .where("b.user_id", "=", user.user.id)
      .where("b.status", "=", "completed")
      .execute();
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(f.owner).toBe(f.backupOwner);
  });

  it("copies a Dropbox history into the other Dropbox account once", async () => {
    const { t, user } = suite.get();
    const picked = [await pick("image", 4), await pick("carousel", 2)];
    const ids = picked.map((p) => p.id);
    await connectDropbox(t, user.token, DEMO_DROPBOX.jordan.accountId);
    expect((await chooseDestination(t, user.token, user.accountId, "dropbox")).status).toBe(200);
    for (const id of ids) await t.ctx.backups.retry(user.user.id, id);
    await run(ids);
    const folder = `/Apps/Keepsake/Keepsake/@${DEMO_IG.business.username}/`;
    const listing = async (email: string) => {
      type Listing = { accounts: { email: string; files: { path: string }[] }[] };
      const l = await control<Listing>(t.sandbox, "dropbox/files");
      return (l.accounts.find((a) => a.email === email)?.files ?? [])
        .map((f) => f.path)
        .filter((p) => p.startsWith(folder) && picked.some((x) => p.includes(x.instagram_id)))
        .sort();
    };
    const first = await listing(DEMO_DROPBOX.jordan.email);
    expect(first.length).toBeGreaterThanOrEqual(4);
    expect((await backups(ids)).map((b) => b.owner)).toEqual(
      ids.map(() => DEMO_DROPBOX.jordan.accountId),
    );

    await connectDropbox(t, user.token, DEMO_DROPBOX.maya.accountId);
    expect((await backups(ids)).map((b) => b.status)).toEqual(ids.map(() => "pending"));
    await run(ids);
    expect(await listing(DEMO_DROPBOX.maya.email)).toEqual(first);
    expect(await listing(DEMO_DROPBOX.jordan.email)).toEqual(first);
    expect((await backups(ids)).map((b) => [b.status, b.destination, b.owner])).toEqual(
      ids.map(() => ["completed", "dropbox", DEMO_DROPBOX.maya.accountId]),
    );
    expect((await chooseDestination(t, user.token, user.accountId, "google_drive")).status).toBe(
      200,
    );
  });

  it("copies an S3 history under another prefix once; the first prefix keeps its objects", async () => {
    const { t, user } = suite.get();
    const picked = [await pick("image", 5), await pick("carousel", 3)];
    const ids = picked.map((p) => p.id);
    const save = async (prefix: string) => {
      const res = await t.call("POST", "/api/destinations/s3", {
        token: user.token,
        body: {
          endpoint: t.sandbox.urls.s3,
          region: SANDBOX_CREDENTIALS.s3.region,
          bucket: SANDBOX_CREDENTIALS.s3.bucket,
          prefix,
          access_key_id: SANDBOX_CREDENTIALS.s3.accessKeyId,
          secret_access_key: SANDBOX_CREDENTIALS.s3.secretAccessKey,
        },
      });
      expect(res.status, res.body.detail).toBe(200);
    };
    const under = async (prefix: string) => {
      type Objects = { objects: { key: string }[] };
      return (await control<Objects>(t.sandbox, "s3/objects")).objects
        .map((o) => o.key)
        .filter((k) => k.startsWith(prefix) && picked.some((p) => k.includes(p.instagram_id)))
        .map((k) => k.slice(prefix.length))
        .sort();
    };
    await save("first");
    expect((await chooseDestination(t, user.token, user.accountId, "s3")).status).toBe(200);
    for (const id of ids) await t.ctx.backups.retry(user.user.id, id);
    await run(ids);
    const first = await under("first/");
    expect(first.length).toBeGreaterThanOrEqual(4);

    // The same settings again: nothing to copy.
    await save("first/");
    expect((await backups(ids)).map((b) => b.status)).toEqual(ids.map(() => "completed"));

    await save("second");
    expect((await backups(ids)).map((b) => b.status)).toEqual(ids.map(() => "pending"));
    await run(ids);
    expect(await under("second/")).toEqual(first);
    expect(await under("first/")).toEqual(first);
    expect((await chooseDestination(t, user.token, user.accountId, "google_drive")).status).toBe(
      200,
    );
  });

  it("disconnected, then connected as another Google account: copied there once; two connections at once end as one account", async () => {
    const { t, user } = suite.get();
    const picked = await posts();
    const ids = picked.map((p) => p.id);
    const igIds = picked.map((p) => p.instagram_id);
    await run(ids);
    expect((await backups(ids)).map((b) => [b.status, b.owner])).toEqual(
      ids.map(() => ["completed", DEMO_GOOGLE.jordan.sub]),
    );

    // Disconnecting forgets which account it was; the backups still know theirs.
    const off = await t.call("DELETE", "/api/oauth/google/disconnect", { token: user.token });
    expect(off.status).toBe(200);
    expect((await backups(ids)).map((b) => b.status)).toEqual(ids.map(() => "completed"));
    await t.connectDrive(user.token, DEMO_GOOGLE.sam.sub);
    expect((await backups(ids)).map((b) => b.status)).toEqual(ids.map(() => "pending"));
    await run(ids);
    expect(await inDrive(DEMO_GOOGLE.sam.email, igIds)).toEqual(
      await inDrive(DEMO_GOOGLE.jordan.email, igIds),
    );

    // Two callbacks at once (Jordan's and Maya's): the row lock orders them; whichever is
    // connected last, the backups are copied into it and recorded there.
    await Promise.all([
      t.connectDrive(user.token, DEMO_GOOGLE.jordan.sub),
      t.connectDrive(user.token, DEMO_GOOGLE.maya.sub),
    ]);
    const connected = await t.ctx.db
      .selectFrom("google_connections")
      .select("google_sub")
      .where("user_id", "=", user.user.id)
      .executeTakeFirstOrThrow();
    expect((await backups(ids)).map((b) => b.status)).toEqual(ids.map(() => "pending"));
    await run(ids);
    expect((await backups(ids)).map((b) => [b.status, b.owner])).toEqual(
      ids.map(() => ["completed", connected.google_sub]),
    );
    // Back to Jordan's for the suite (nothing to copy when Jordan's was connected last).
    await t.connectDrive(user.token, DEMO_GOOGLE.jordan.sub);
    const back = await backups(ids);
    await run(back.filter((b) => b.status === "pending").map((b) => b.post_id));
  });
});
