import { adminMessages, messages } from "@keepsake/contracts";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSecrets } from "../../src/lib/secrets.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { burst } from "../support/burst.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const valid = { full_name: "Ada Lovelace", email: "ada@example.com", password: "Engine1843" };

describe("POST /api/auth/register", () => {
  it("creates the user and answers the SPEC §3 profile", async () => {
    const res = await t.call("POST", "/api/auth/register", {
      body: { ...valid, email: "  Ada@Example.com " },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: "Ada@Example.com",
      full_name: "Ada Lovelace",
      is_admin: false,
      is_active: true,
      subscription_tier: "free",
      token_expires_at: null,
      social_accounts: [],
    });
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "created_at",
        "email",
        // Issue 29: the address's verification and a pending e-mail change.
        "email_verified",
        "full_name",
        "id",
        "is_active",
        "is_admin",
        "pending_email",
        "social_accounts",
        "subscription_tier",
        "token_expires_at",
      ].sort(),
    );
    const row = await t.ctx.db
      .selectFrom("users")
      .select("password_hash")
      .where("id", "=", res.body.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.password_hash).not.toContain(valid.password);
  });

  // Issue 35 changed this answer on purpose: it was 409 "Email already registered", which told
  // anyone whether an address has an account. Now a taken address, whatever its case, gets a new
  // account's answer, and nothing is created (registration.test.ts: the owner is mailed).
  it("answers a taken e-mail, whatever its case, as a new one and creates nothing", async () => {
    const res = await t.call("POST", "/api/auth/register", {
      body: { ...valid, email: "ADA@example.COM", password: "Other1843x" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: "ADA@example.COM", email_verified: false });
    const rows = await t.ctx.db
      .selectFrom("users")
      .select("id")
      .where("email", "ilike", "ada@example.com")
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).not.toBe(res.body.id);
    const login = await t.call("POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: "Other1843x" },
      ip: "198.51.100.250",
    });
    expect(login.status).toBe(401);
  });

  it.each([
    [{ ...valid, full_name: "" }, messages.fullNameRequired],
    [{ ...valid, full_name: undefined }, messages.fullNameRequired],
    [{ ...valid, full_name: "A" }, messages.fullNameShort],
    [{ ...valid, email: "" }, messages.emailRequired],
    [{ ...valid, email: "not-an-email" }, messages.emailInvalid],
    [{ ...valid, password: "" }, messages.passwordRequired],
    [{ ...valid, password: "Ab1" }, messages.passwordShortRegister],
    [{ ...valid, password: "alllowercase1" }, messages.passwordWeak],
    [{ ...valid, password: "NoDigitsHere" }, messages.passwordWeak],
  ])("answers 422 with the SPEC §5 message (%#)", async (body, message) => {
    const res = await t.call("POST", "/api/auth/register", {
      body: { ...body, email: body.email === valid.email ? "fresh@example.com" : body.email },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: message });
  });
});

describe("login, profile, logout and refresh", () => {
  const user = { full_name: "Grace Hopper", email: "grace@example.com", password: "Cobol1959x" };
  beforeAll(async () => {
    await t.call("POST", "/api/auth/register", { body: user });
  });

  it("logs in case-insensitively and reads the profile with the token", async () => {
    const login = await t.call("POST", "/api/auth/login", {
      body: { email: " GRACE@example.com", password: user.password },
    });
    expect(login.status).toBe(200);
    expect(login.body.token_type).toBe("bearer");
    const me = await t.call("GET", "/api/auth/me", { token: login.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(user.email);
  });

  it("gives the same answer for a wrong password and an unknown e-mail", async () => {
    const wrong = await t.call("POST", "/api/auth/login", {
      body: { email: user.email, password: "WrongPass1" },
      headers: { "x-forwarded-for": "1" },
    });
    const unknown = await t.call("POST", "/api/auth/login", {
      body: { email: "nobody@example.com", password: "WrongPass1" },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ detail: "Incorrect email or password" });
    expect(unknown.body).toEqual(wrong.body);
  });

  it("validates the login payload with the SPEC §5 messages", async () => {
    const short = await t.call("POST", "/api/auth/login", {
      body: { email: user.email, password: "abc" },
    });
    expect(short.body).toEqual({ detail: messages.passwordShortLogin });
    const missing = await t.call("POST", "/api/auth/login", { body: { password: "abcdefg" } });
    expect(missing.body).toEqual({ detail: messages.emailRequired });
  });

  it("refuses requests without a valid token", async () => {
    expect((await t.call("GET", "/api/auth/me")).status).toBe(401);
    expect((await t.call("GET", "/api/auth/me", { token: "garbage" })).status).toBe(401);
  });

  it("logout ends the session; the same token is refused afterwards", async () => {
    const { token } = await t.signUp();
    expect((await t.call("POST", "/api/auth/logout", { token })).status).toBe(204);
    const me = await t.call("GET", "/api/auth/me", { token });
    expect(me.status).toBe(401);
    expect((await t.call("POST", "/api/auth/refresh", { token })).status).toBe(401);
  });

  it("answers that carry a token or the profile are never stored by a cache", async () => {
    const { user, password, token } = await t.signUp();
    const answers = [
      await t.call("POST", "/api/auth/login", { body: { email: user.email, password } }),
      await t.call("POST", "/api/auth/refresh", { token }),
      await t.call("GET", "/api/auth/me", { token }),
      await t.call("PATCH", "/api/auth/me", { token, body: { full_name: "New Name" } }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers["cache-control"]).toBe("no-store");
    }
  });

  it("refresh issues a fresh token for a live session", async () => {
    const { token } = await t.signUp();
    t.clock.advance(1000);
    const res = await t.call("POST", "/api/auth/refresh", { token });
    expect(res.status).toBe(200);
    expect(res.body.access_token).not.toBe(token);
    expect((await t.call("GET", "/api/auth/me", { token: res.body.access_token })).status).toBe(
      200,
    );
  });

  it("refuses with 401 a token signed with our secret whose ids are not UUIDs", async () => {
    const { user } = await t.signUp();
    const { jwtSecret } = loadSecrets(t.ctx.config);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    for (const [sid, sub] of [
      ["not-a-uuid", user.id],
      ["x".repeat(5000), user.id],
      [crypto.randomUUID(), "nope"],
      [42, user.id],
    ]) {
      const token = await new SignJWT({ sid })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(String(sub))
        .setIssuer("keepsake")
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(jwtSecret);
      const res = await t.call("GET", "/api/auth/me", { token });
      expect(res.status, String(sid)).toBe(401);
      expect(res.body).toEqual({ detail: "Could not validate credentials" });
    }
  });

  it("an expired token is refused, also after it was accepted", async () => {
    const { token } = await t.signUp();
    expect((await t.call("GET", "/api/auth/me", { token })).status).toBe(200);
    t.clock.advance(t.ctx.config.ACCESS_TOKEN_TTL_MINUTES * 60_000 + 1000);
    expect((await t.call("GET", "/api/auth/me", { token })).status).toBe(401);
  });

  it("deactivating or deleting a user ends their sessions at once", async () => {
    const a = await t.signUp();
    await t.rows.auth.updateUser(a.user.id, { is_active: false });
    expect((await t.call("GET", "/api/auth/me", { token: a.token })).status).toBe(401);
    const login = await t.call("POST", "/api/auth/login", {
      body: { email: a.user.email, password: a.password },
    });
    expect(login.status).toBe(403);
    expect(login.body).toEqual({ detail: adminMessages.deactivatedLogin });

    const b = await t.signUp();
    await t.rows.auth.deleteUser(b.user.id);
    expect((await t.call("GET", "/api/auth/me", { token: b.token })).status).toBe(401);
  });

  it("PATCH /api/auth/me updates the full name", async () => {
    const { token } = await t.signUp();
    const res = await t.call("PATCH", "/api/auth/me", {
      token,
      body: { full_name: "  New Name " },
    });
    expect(res.status).toBe(200);
    expect(res.body.full_name).toBe("New Name");
    const bad = await t.call("PATCH", "/api/auth/me", { token, body: { full_name: "x" } });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ detail: messages.fullNameShort });
  });
});

describe("throttling", () => {
  it("answers 429 with Retry-After after repeated failures, and lifts after the window", async () => {
    const { user, password } = await t.signUp();
    const attempt = (pw: string) =>
      t.call("POST", "/api/auth/login", { body: { email: user.email, password: pw } });
    for (let i = 0; i < t.ctx.config.LOGIN_MAX_FAILURES; i++) {
      expect((await attempt("WrongPass1")).status).toBe(401);
    }
    const blocked = await attempt(password);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    expect(blocked.body.detail).toMatch(/Too many failed sign-in attempts/);
    t.clock.advance(t.ctx.config.LOGIN_FAILURE_WINDOW_SECONDS * 1000 + 1000);
    expect((await attempt(password)).status).toBe(200);
  });

  it("30 wrong passwords for one e-mail sent at once: exactly the limit are checked", async () => {
    const { user, password } = await t.signUp();
    const limit = t.ctx.config.LOGIN_MAX_FAILURES;
    const { statuses } = await burst(30, (i) =>
      t.call("POST", "/api/auth/login", {
        body: { email: user.email, password: "WrongPass1" },
        ip: `198.51.100.${i + 1}`,
      }),
    );
    expect(statuses).toEqual({ 401: limit, 429: 30 - limit });
    // The right password is refused too until the window passes.
    expect(
      (await t.call("POST", "/api/auth/login", { body: { email: user.email, password } })).status,
    ).toBe(429);
    t.clock.advance(t.ctx.config.LOGIN_FAILURE_WINDOW_SECONDS * 1000 + 1000);
  });

  it("100 wrong sign-ins from one address sent at once: exactly the address's limit are checked", async () => {
    const limit = t.ctx.config.LOGIN_MAX_FAILURES * 4;
    const { statuses } = await burst(100, (i) =>
      t.call("POST", "/api/auth/login", {
        body: { email: `nobody${i}@example.com`, password: "WrongPass1" },
        ip: "203.0.113.7",
      }),
    );
    expect(statuses).toEqual({ 401: limit, 429: 100 - limit });
    t.clock.advance(t.ctx.config.LOGIN_FAILURE_WINDOW_SECONDS * 1000 + 1000);
  });

  it("a right password takes back its reserved attempt", async () => {
    const { user, password } = await t.signUp();
    const limit = t.ctx.config.LOGIN_MAX_FAILURES;
    const attempt = (pw: string) =>
      t.call("POST", "/api/auth/login", { body: { email: user.email, password: pw } });
    for (let i = 0; i < limit + 2; i++) expect((await attempt(password)).status).toBe(200);
    for (let i = 0; i < limit - 1; i++) expect((await attempt("WrongPass1")).status).toBe(401);
    expect((await attempt(password)).status).toBe(200);
  });
});
