import { CONTACT_LIMITS } from "@keepsake/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { burst } from "../support/burst.ts";

let t: TestApp;
let admin: Awaited<ReturnType<TestApp["signUp"]>>;
beforeAll(async () => {
  t = await createTestApp({ CONTACT_MAX_PER_HOUR: "3" });
  admin = await t.signUp({ email: "inbox.admin@example.com" });
  await t.rows.auth.updateUser(admin.user.id, { is_admin: true });
});
afterAll(async () => {
  await t.close();
});

const valid = {
  name: "Ada",
  email: "ada@example.com",
  subject: "Backups",
  message: "How often do backups run?",
};

async function send(body: unknown, ip = "198.51.100.1") {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/contact",
    payload: body as object,
    remoteAddress: ip,
  });
  return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers };
}

describe("POST /api/contact", () => {
  it.each([
    [{ ...valid, name: "  " }, "Name is required"],
    [{ ...valid, email: undefined }, "Email is required"],
    [{ ...valid, email: "not-an-address" }, "Invalid email address"],
    [{ ...valid, subject: "" }, "Subject is required"],
    [{ ...valid, message: undefined }, "Message is required"],
    [
      { ...valid, name: "n".repeat(CONTACT_LIMITS.name + 1) },
      "Name must be at most 200 characters",
    ],
    [
      { ...valid, subject: "s".repeat(CONTACT_LIMITS.subject + 1) },
      "Subject must be at most 200 characters",
    ],
    [
      { ...valid, message: "m".repeat(CONTACT_LIMITS.message + 1) },
      "Message must be at most 5000 characters",
    ],
  ])("answers 422 for an invalid message (%#)", async (body, detail) => {
    const res = await send(body, "198.51.100.99");
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail });
  });

  it("stores a valid message, trimmed", async () => {
    const res = await send({ ...valid, name: "  Ada Lovelace  " });
    expect(res.status).toBe(201);
    const row = await t.ctx.db
      .selectFrom("contact_messages")
      .selectAll()
      .where("id", "=", res.body.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      name: "Ada Lovelace",
      email: valid.email,
      ip: "198.51.100.1",
      handled_at: null,
    });
  });

  it("accepts at most the configured number per client address an hour, then 429 with Retry-After", async () => {
    const ip = "198.51.100.7";
    for (let i = 0; i < 3; i++)
      expect((await send({ ...valid, subject: `n${i}` }, ip)).status).toBe(201);
    const refused = await send(valid, ip);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/^Too many messages from your network/);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(3500);
    // Another address is not affected; invalid attempts were not counted.
    expect((await send(valid, "198.51.100.8")).status).toBe(201);
    t.clock.advance(3_600_001);
    expect((await send(valid, ip)).status).toBe(201);
  });

  it("30 messages from one address sent at once: exactly the limit are stored", async () => {
    const ip = "198.51.100.30";
    const { statuses } = await burst(30, (i) => send({ ...valid, subject: `burst ${i}` }, ip));
    expect(statuses).toEqual({ 201: 3, 429: 27 });
    const stored = await t.ctx.db
      .selectFrom("contact_messages")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("ip", "=", ip)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(3);
  });
});

describe("the admin inbox", () => {
  it("is for admins only", async () => {
    const plain = await t.signUp();
    expect((await t.call("GET", "/api/admin/messages")).status).toBe(401);
    expect((await t.call("GET", "/api/admin/messages", { token: plain.token })).status).toBe(403);
    const id = "00000000-0000-4000-8000-000000000000";
    expect(
      (await t.call("PUT", `/api/admin/messages/${id}/handled`, { token: plain.token })).status,
    ).toBe(403);
  });

  it("lists messages newest first and marks one handled", async () => {
    t.clock.advance(1000);
    const latest = await send({ ...valid, subject: "Newest" }, "198.51.100.20");
    const list = await t.call("GET", "/api/admin/messages?limit=5", { token: admin.token });
    expect(list.status).toBe(200);
    expect(list.body.messages[0]).toMatchObject({
      id: latest.body.id,
      subject: "Newest",
      handled_at: null,
    });
    const created = list.body.messages.map((m: { created_at: string }) => Date.parse(m.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const unhandled = list.body.unhandled;
    expect(list.body.total).toBe(unhandled);

    const done = await t.call("PUT", `/api/admin/messages/${latest.body.id}/handled`, {
      token: admin.token,
    });
    expect(done.status).toBe(200);
    expect(done.body.handled_at).toBe(t.clock.now().toISOString());
    const again = await t.call("GET", "/api/admin/messages", { token: admin.token });
    expect(again.body.unhandled).toBe(unhandled - 1);
    const missing = await t.call(
      "PUT",
      "/api/admin/messages/00000000-0000-4000-8000-000000000000/handled",
      { token: admin.token },
    );
    expect(missing.status).toBe(404);
  });
});
