import { adminMessages } from "@keepsake/contracts";
import { DEMO_IG } from "@keepsake/sandbox";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncAccountJob } from "../../src/sync/jobs/sync-account.job.ts";
import { backupHelpers, FAST_ENGINE } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let admin: Awaited<ReturnType<SandboxedApp["signUp"]>>;
let plain: Awaited<ReturnType<SandboxedApp["signUp"]>>;

beforeAll(async () => {
  t = await createSandboxedApp({}, { engineSettings: FAST_ENGINE });
  h = backupHelpers(t);
  admin = await t.signUp({ email: "root@example.com", full_name: "Root Admin" });
  await t.rows.auth.updateUserByEmail("root@example.com", { is_admin: true });
  plain = await t.signUp({ email: "plain@example.com" });
});
afterAll(async () => {
  await t.close();
});

const someId = "00000000-0000-4000-8000-000000000000";
const routes = [
  ["GET", "/api/admin/users"],
  ["PUT", `/api/admin/users/${someId}/toggle-admin`],
  ["PUT", `/api/admin/users/${someId}/toggle-active`],
  ["DELETE", `/api/admin/users/${someId}`],
] as const;

describe("admin routes: who may call them", () => {
  it.each(routes)("%s %s answers 401 without a session", async (method, url) => {
    const res = await t.call(method, url);
    expect(res.status).toBe(401);
    expect(res.body.detail).toBeTruthy();
  });

  it.each(routes)("%s %s answers 403 to a signed-in non-admin", async (method, url) => {
    const res = await t.call(method, url, { token: plain.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: "Admin privileges required" });
  });

  it("answers 404 for an unknown or malformed user id", async () => {
    for (const id of [someId, "not-a-uuid"]) {
      const res = await t.call("PUT", `/api/admin/users/${id}/toggle-admin`, {
        token: admin.token,
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: adminMessages.notFound });
    }
  });

  it.each([
    ["PUT", "toggle-admin", adminMessages.selfAdmin],
    ["PUT", "toggle-active", adminMessages.selfActive],
    ["DELETE", "", adminMessages.selfDelete],
  ] as const)("refuses to %s %s the admin themselves with 400", async (method, action, detail) => {
    const url = `/api/admin/users/${admin.user.id}${action ? `/${action}` : ""}`;
    const res = await t.call(method, url, { token: admin.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail });
    const me = await t.call("GET", "/api/auth/me", { token: admin.token });
    expect(me.body).toMatchObject({ is_admin: true, is_active: true });
  });
});

describe("GET /api/admin/users", () => {
  beforeAll(async () => {
    const base = new Date("2026-01-01T00:00:00Z").getTime();
    await t.rows.auth.insertUsers(
      Array.from({ length: 60 }, (_, i) => ({
        email: `bulk${String(i).padStart(2, "0")}@example.org`,
        full_name: i % 2 ? `Bulk Person ${i}` : null,
        password_hash: "x",
        created_at: new Date(base + i * 60_000),
      })),
    );
  });

  it("pages through every user, newest first, with the total", async () => {
    const first = await t.call("GET", "/api/admin/users?limit=25&offset=0", { token: admin.token });
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(62);
    expect(first.body.users).toHaveLength(25);
    expect(first.body).toMatchObject({ limit: 25, offset: 0 });
    const last = await t.call("GET", "/api/admin/users?limit=25&offset=50", { token: admin.token });
    expect(last.body.users).toHaveLength(12);
    const all = [];
    for (let offset = 0; offset < 62; offset += 25) {
      const page = await t.call("GET", `/api/admin/users?limit=25&offset=${offset}`, {
        token: admin.token,
      });
      all.push(...page.body.users);
    }
    expect(new Set(all.map((u) => u.id)).size).toBe(62);
    const created = all.map((u) => Date.parse(u.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(all[0]).toMatchObject({
      is_admin: expect.any(Boolean),
      subscription_tier: "free",
      social_accounts: [],
      token_expires_at: null,
    });
  });

  it("searches e-mail and name, case-insensitively, with LIKE characters taken literally", async () => {
    const byEmail = await t.call("GET", "/api/admin/users?search=BULK1", { token: admin.token });
    expect(byEmail.body.total).toBe(10);
    const byName = await t.call("GET", "/api/admin/users?search=person%2059", {
      token: admin.token,
    });
    expect(byName.body.users.map((u: { email: string }) => u.email)).toEqual([
      "bulk59@example.org",
    ]);
    const literal = await t.call("GET", "/api/admin/users?search=%25", { token: admin.token });
    expect(literal.body.total).toBe(0);
  });

  it("answers 422 for a bad page size", async () => {
    const res = await t.call("GET", "/api/admin/users?limit=1000", { token: admin.token });
    expect(res.status).toBe(422);
    expect(res.body.detail).toBe("limit must be at most 100");
  });
});

describe("toggles", () => {
  it("toggle-admin flips the flag both ways and answers the user", async () => {
    const on = await t.call("PUT", `/api/admin/users/${plain.user.id}/toggle-admin`, {
      token: admin.token,
    });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ id: plain.user.id, is_admin: true });
    expect((await t.call("GET", "/api/admin/users", { token: plain.token })).status).toBe(200);
    const off = await t.call("PUT", `/api/admin/users/${plain.user.id}/toggle-admin`, {
      token: admin.token,
    });
    expect(off.body.is_admin).toBe(false);
    expect((await t.call("GET", "/api/admin/users", { token: plain.token })).status).toBe(403);
  });

  it("deactivation ends sessions at once, refuses login and pauses scheduled syncs; activation restores", async () => {
    const u = await h.connectedUser({ instagram: DEMO_IG.business.id, tier: "premium" });
    const scheduled = await t.ctx.queue.send(
      syncAccountJob,
      { accountId: u.accountId, kind: "scheduled", mode: "backup" },
      { singletonKey: `sync:${u.accountId}:scheduled`, startAfter: 300 },
    );
    expect(scheduled).toBeTruthy();
    const auto = async () =>
      (await t.ctx.accountsRepo.accountsForAutoSync(["premium"])).map((a) => a.id);
    expect(await auto()).toContain(u.accountId);

    const off = await t.call("PUT", `/api/admin/users/${u.user.id}/toggle-active`, {
      token: admin.token,
    });
    expect(off.status).toBe(200);
    expect(off.body.is_active).toBe(false);
    expect((await t.call("GET", "/api/auth/me", { token: u.token })).status).toBe(401);
    const login = await t.call("POST", "/api/auth/login", {
      body: { email: u.user.email, password: u.password },
    });
    expect(login.status).toBe(403);
    expect(login.body).toEqual({ detail: adminMessages.deactivatedLogin });
    expect(await auto()).not.toContain(u.accountId);
    expect(
      await t.ctx.queue.boss.findJobs(syncAccountJob.name, { data: { accountId: u.accountId } }),
    ).toEqual([]);

    const on = await t.call("PUT", `/api/admin/users/${u.user.id}/toggle-active`, {
      token: admin.token,
    });
    expect(on.body.is_active).toBe(true);
    const again = await t.call("POST", "/api/auth/login", {
      body: { email: u.user.email, password: u.password },
    });
    expect(again.status).toBe(200);
    expect(await auto()).toContain(u.accountId);
  });
});

/** Every row of every table in Keepsake's schema whose text mentions the id or the e-mail. */
async function rowsMentioning(needles: string[]) {
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(t.ctx.db);
  const found: Record<string, number> = {};
  for (const { table_name } of tables.rows) {
    const r = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(table_name)} AS x
       WHERE ${sql.join(
         needles.map((n) => sql`lower(row_to_json(x)::text) LIKE ${`%${n.toLowerCase()}%`}`),
         sql` OR `,
       )}`.execute(t.ctx.db);
    if (r.rows[0]!.n > 0) found[table_name] = r.rows[0]!.n;
  }
  return { tables: tables.rows.length, found };
}

describe("deleting a user", () => {
  it("removes every row about the user, revokes Google, drops queued jobs and leaves Drive alone", async () => {
    const u = await h.connectedUser({ instagram: DEMO_IG.creator.id });
    // Two real backups into Drive; the other posts are recorded as backed up already.
    await h.listPosts(u);
    const images = await t.ctx.db
      .selectFrom("posts")
      .select("instagram_id")
      .where("user_id", "=", u.user.id)
      .where("media_type", "=", "IMAGE")
      .limit(2)
      .execute();
    await h.leaveOnlyToBackUp(u.user.id, new Set(images.map((p) => p.instagram_id)));
    const { job } = await h.syncAndDrain(u.user.id, u.accountId);
    expect(job?.status).toBe("completed");
    const files = (await h.driveFiles()).filter((f) => !f.isFolder && !f.trashed);
    expect(files.length).toBeGreaterThanOrEqual(2);
    const posts = await t.ctx.db
      .selectFrom("posts")
      .select("id")
      .where("user_id", "=", u.user.id)
      .execute();
    await t.ctx.queue.send(
      syncAccountJob,
      { accountId: u.accountId, kind: "scheduled" },
      { startAfter: 600 },
    );
    await t.rows.auth.insertLoginFailure({ email: u.user.email.toLowerCase(), ip: "203.0.113.9" });
    await t.rows.contact.insertMessage({
      name: "N",
      email: u.user.email.toUpperCase(),
      subject: "s",
      message: "m",
      ip: "203.0.113.9",
    });
    await t.rows.status.insertSubscriber({ email: u.user.email.toLowerCase() });
    await t.call("GET", "/api/oauth/google/auth-url", { token: u.token }); // an OAuth state row
    const needles = [u.user.id, u.user.email, u.accountId];
    const before = await rowsMentioning(needles);
    for (const table of [
      "users",
      "sessions",
      "instagram_accounts",
      "google_connections",
      "posts",
      "backups",
      "sync_jobs",
      "drive_folders",
      "account_sync_state",
      "oauth_states",
      "login_failures",
      "contact_messages",
      "status_subscribers",
    ]) {
      expect(before.found[table], table).toBeGreaterThan(0);
    }
    await h.control("/calls", { method: "DELETE" });

    const res = await t.call("DELETE", `/api/admin/users/${u.user.id}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: `Account ${u.user.email} deleted. Files already in Google Drive stay there.`,
      google_revoked: true,
      facebook_revoked: 0,
    });

    const after = await rowsMentioning(needles);
    expect(after.tables).toBe(before.tables);
    expect(after.found).toEqual({});
    expect((await h.calls())["google.revoke"]).toBe(1);
    expect(
      await t.ctx.queue.boss.findJobs(syncAccountJob.name, { data: { accountId: u.accountId } }),
    ).toEqual([]);
    expect(
      await t.ctx.queue.boss.findJobs("backup-post", { data: { postId: posts[0]!.id } }),
    ).toEqual([]);
    const left = (await h.driveFiles()).filter((f) => !f.isFolder && !f.trashed);
    expect(left.map((f) => f.id).sort()).toEqual(files.map((f) => f.id).sort());
    // Other users keep their rows.
    expect((await t.call("GET", "/api/auth/me", { token: plain.token })).status).toBe(200);
    expect(
      (await t.call("DELETE", `/api/admin/users/${u.user.id}`, { token: admin.token })).status,
    ).toBe(404);
  });

  it("lets users delete their own account with their password", async () => {
    const u = await t.signUp({ email: "leaving@example.com" });
    const wrong = await t.call("DELETE", "/api/auth/me", {
      token: u.token,
      body: { password: "Nope1234" },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ detail: adminMessages.wrongPassword });
    const missing = await t.call("DELETE", "/api/auth/me", { token: u.token, body: {} });
    expect(missing.status).toBe(422);
    expect((await t.call("GET", "/api/auth/me", { token: u.token })).status).toBe(200);
    // A mail choice of theirs (kept by the mail area under their id) goes with them too.
    const off = await t.call("PUT", "/api/notifications/preferences", {
      token: u.token,
      body: { category: "alert_billing", enabled: false },
    });
    expect(off.status).toBe(200);
    expect((await rowsMentioning([u.user.id])).found).toHaveProperty("mail_preferences", 1);

    const ok = await t.call("DELETE", "/api/auth/me", {
      token: u.token,
      body: { password: u.password },
    });
    expect(ok.status).toBe(200);
    expect((await t.call("GET", "/api/auth/me", { token: u.token })).status).toBe(401);
    expect((await rowsMentioning([u.user.id, "leaving@example.com"])).found).toEqual({});
    const login = await t.call("POST", "/api/auth/login", {
      body: { email: "leaving@example.com", password: u.password },
    });
    expect(login.status).toBe(401);
  });
});
