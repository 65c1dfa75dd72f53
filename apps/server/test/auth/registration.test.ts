import type { SandboxMail } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { deliverMailJob } from "../../src/mail/mail.jobs.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until } from "../support/wait.ts";

// Issue 35: registration answers the same for a taken address (its owner is mailed instead), is
// limited per client and for everyone, and its mails stay within their hourly cap.
let t: SandboxedApp;
beforeAll(async () => {
  t = await createSandboxedApp(
    {
      APP_URL: "http://keepsake.test",
      REGISTER_MAX_PER_HOUR: "3",
      REGISTER_GLOBAL_MAX_PER_HOUR: "6",
      MAIL_HOURLY_CAP_REGISTRATION: "4",
    },
    { jobs: [deliverMailJob, accountMailJob] },
  );
  await t.ctx.queue.work(t.ctx);
});
afterAll(async () => {
  await t?.close();
});
// Each test starts with fresh hourly windows.
beforeEach(() => t.clock.advance(3_600_000 + 1000));

async function inbox(to: string): Promise<SandboxMail[]> {
  const res = await fetch(`${t.sandbox.url}/_control/mail?to=${encodeURIComponent(to)}`);
  return (await res.json()) as SandboxMail[];
}
const register = (body: { full_name: string; email: string; password: string }, ip: string) =>
  t.call("POST", "/api/auth/register", { body, ip });
const usersWith = (email: string) =>
  t.ctx.db.selectFrom("users").select("id").where("email", "ilike", email).execute();

describe("registering a taken address", () => {
  it("answers as for a new address after the same work, creates nothing, and mails the owner instead", async () => {
    const owner = {
      full_name: "Owner Person",
      email: "owner.taken@example.com",
      password: "Own3rPass",
    };
    const first = await register(owner, "198.51.100.1");
    expect(first.status).toBe(201);

    const fresh = {
      full_name: "Click evil.example now",
      email: "fresh.new@example.com",
      password: "Fr3shPass",
    };
    const created = await register(fresh, "198.51.100.2");
    const again = { ...fresh, email: "OWNER.taken@example.com" };
    const taken = await register(again, "198.51.100.3");

    // Same status, same fields, same kinds of values; the id belongs to nobody.
    expect(taken.status).toBe(created.status);
    expect(Object.keys(taken.body).sort()).toEqual(Object.keys(created.body).sort());
    const shape = (b: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(b).map(([k, v]) => [k, Array.isArray(v) ? v : typeof v]));
    expect(shape(taken.body)).toEqual(shape(created.body));
    expect(taken.body).toMatchObject({
      email: again.email,
      full_name: again.full_name,
      email_verified: false,
      subscription_tier: "free",
      social_accounts: [],
    });
    expect(taken.body.id).not.toBe(first.body.id);
    // (That both do the same work is checked in account-tokens.test.ts, with no worker.)

    // Nothing created or changed: one account, the owner's password still works.
    expect(await usersWith(owner.email)).toEqual([{ id: first.body.id }]);
    const ownerLogin = await t.call("POST", "/api/auth/login", {
      body: { email: owner.email, password: owner.password },
    });
    expect(ownerLogin.status).toBe(200);
    const intruder = await t.call("POST", "/api/auth/login", {
      body: { email: again.email, password: again.password },
    });
    expect(intruder.status).toBe(401);

    // The owner hears of it, without the name the request chose; the new account gets its
    // verification link, not greeted with its (unverified) chosen name either.
    const notice = await until(
      () => inbox(owner.email),
      (l) => l.some((m) => m.subject === "Someone tried to sign up with your address"),
    );
    const mail = notice.find((m) => m.subject === "Someone tried to sign up with your address")!;
    expect(mail.text).toContain("http://keepsake.test/forgot-password");
    expect(mail.text).not.toContain("Click evil");
    const [verify] = await until(
      () => inbox(fresh.email),
      (l) => l.length === 1,
    );
    expect(verify!.subject).toBe("Verify your e-mail address");
    expect(verify!.text).not.toContain("Click evil");
    expect(verify!.text).toContain("Hi there,");
  });
});

describe("registration limits", () => {
  const person = (i: number) => ({
    full_name: "Limit Person",
    email: `limit.${i}.${Date.now()}@example.com`,
    password: "L1mitPass",
  });

  it("answers 429 with Retry-After past the per-client limit, taken addresses counted alike", async () => {
    const ip = "203.0.113.50";
    const a = person(1);
    expect((await register(a, ip)).status).toBe(201);
    expect((await register(a, ip)).status).toBe(201); // taken: counted the same
    expect((await register(person(2), ip)).status).toBe(201);
    const refused = await register(person(3), ip);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/^Too many sign-ups\. Please try again in \d+ minute/);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(3500);
    expect(await usersWith(person(3).email)).toHaveLength(0);
    // Another client is not affected.
    expect((await register(person(4), "203.0.113.51")).status).toBe(201);
  });

  it("a burst from many clients stops at the global limit", async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => register(person(100 + i), `192.0.2.${i + 1}`)),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(6);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    t.clock.advance(3_600_000 + 1000);
    expect((await register(person(200), "192.0.2.200")).status).toBe(201);
  });

  it("registration mails stay within their hourly cap; the accounts still work", async () => {
    const since = t.clock.now();
    const people = Array.from({ length: 6 }, (_, i) => person(300 + i));
    for (const [i, p] of people.entries())
      expect((await register(p, `192.0.2.${100 + i}`)).status).toBe(201);
    const recorded = () =>
      t.ctx.db
        .selectFrom("mail_outbox")
        .select("to_address")
        .where("cap_group", "=", "registration")
        .where("created_at", ">=", since)
        .execute();
    // Every job ran: four mails recorded (the cap), two skipped.
    const everyJobRan = () =>
      until(
        () => t.ctx.queue.stats(),
        (s) => {
          const q = s.find((x) => x.queue === "account-mail");
          return !!q && q.waiting === 0 && q.active === 0;
        },
      );
    await everyJobRan();
    await until(recorded, (r) => r.length >= 4);
    // Nothing left to run that could record a fifth.
    await everyJobRan();
    expect(await recorded()).toHaveLength(4);
    const login = await t.call("POST", "/api/auth/login", {
      body: { email: people[5]!.email, password: people[5]!.password },
    });
    expect(login.status).toBe(200);
  });
});
