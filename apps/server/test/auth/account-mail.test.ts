import { accountMessages } from "@keepsake/contracts";
import type { SandboxMail } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { deliverMailJob } from "../../src/mail/mail.jobs.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until } from "../support/wait.ts";

// Account e-mails end to end on the server: the API, the outbox, the sandbox's SMTP server.
let t: SandboxedApp;
beforeAll(async () => {
  t = await createSandboxedApp(
    { ACCOUNT_MAIL_MAX_PER_HOUR: "3", APP_URL: "http://keepsake.test" },
    { jobs: [deliverMailJob, accountMailJob] },
  );
  await t.ctx.queue.work(t.ctx);
});
afterAll(async () => {
  await t?.close();
});

async function inbox(to: string): Promise<SandboxMail[]> {
  const res = await fetch(`${t.sandbox.url}/_control/mail?to=${encodeURIComponent(to)}`);
  return (await res.json()) as SandboxMail[];
}
/** Waits for the `count`-th mail to `to` whose subject matches, and answers the newest. */
async function mailTo(to: string, subject: RegExp, count = 1) {
  const list = await until(
    () => inbox(to),
    (l) => l.filter((m) => subject.test(m.subject)).length >= count,
    20_000,
  );
  return list.find((m) => subject.test(m.subject))!;
}
const linkToken = (mail: SandboxMail, path: string) => {
  const m = new RegExp(`http://keepsake\\.test${path}\\?token=([\\w-]+)`).exec(mail.text);
  if (!m) throw new Error(`no ${path} link in: ${mail.text}`);
  return m[1]!;
};
const me = (token: string) => t.call("GET", "/api/auth/me", { token });

let n = 0;
const address = (name: string) => `${name}.${++n}.${Date.now()}@example.com`;

describe("forgot password", () => {
  it("answers the same whether or not the address has an account, and mails only an account", async () => {
    const { user } = await t.signUp({ email: address("known") });
    const stranger = address("nobody");
    const known = await t.call("POST", "/api/auth/forgot-password", {
      body: { email: user.email.toUpperCase() },
      ip: "203.0.113.10",
    });
    const unknown = await t.call("POST", "/api/auth/forgot-password", {
      body: { email: stranger },
      ip: "203.0.113.11",
    });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    expect(known.body.message).toBe(accountMessages.resetSent);
    const mail = await mailTo(user.email, /Reset your Keepsake password/);
    expect(mail.text).toContain("works once, for one hour");
    expect(await inbox(stranger)).toHaveLength(0);
    // Only a hash of the token is stored.
    const token = linkToken(mail, "/reset-password");
    const rows = await t.ctx.db.selectFrom("account_tokens").selectAll().execute();
    expect(rows.some((r) => r.token_hash.includes(token))).toBe(false);
  });

  it("sets a new password once, ends every session, and refuses the link a second time", async () => {
    const email = address("reset");
    const { token: session, password } = await t.signUp({ email });
    expect((await me(session)).status).toBe(200);
    await t.call("POST", "/api/auth/forgot-password", { body: { email }, ip: "203.0.113.20" });
    const reset = linkToken(await mailTo(email, /Reset your/), "/reset-password");
    const done = await t.call("POST", "/api/auth/reset-password", {
      body: { token: reset, password: "NewPassw0rd" },
    });
    expect(done.status).toBe(200);
    expect(done.body.message).toBe(accountMessages.resetDone);
    // The old session is refused; the old password too; the new one signs in.
    expect((await me(session)).status).toBe(401);
    const old = await t.call("POST", "/api/auth/login", { body: { email, password } });
    expect(old.status).toBe(401);
    const fresh = await t.call("POST", "/api/auth/login", {
      body: { email, password: "NewPassw0rd" },
    });
    expect(fresh.status).toBe(200);
    // Single use.
    const again = await t.call("POST", "/api/auth/reset-password", {
      body: { token: reset, password: "OtherPassw0rd" },
    });
    expect(again.status).toBe(422);
    expect(again.body.detail).toBe(accountMessages.resetInvalid);
  });

  it("a link expires after one hour (the injected clock)", async () => {
    const email = address("expiry");
    await t.signUp({ email });
    await t.call("POST", "/api/auth/forgot-password", { body: { email }, ip: "203.0.113.30" });
    const reset = linkToken(await mailTo(email, /Reset your/), "/reset-password");
    t.clock.advance(60 * 60_000 + 1000);
    const late = await t.call("POST", "/api/auth/reset-password", {
      body: { token: reset, password: "NewPassw0rd" },
    });
    expect(late.status).toBe(422);
    expect(late.body.detail).toBe(accountMessages.resetInvalid);
  });

  it("is limited per address and per client, whether or not the address has an account", async () => {
    const email = address("limit");
    for (let i = 0; i < 3; i++) {
      const ok = await t.call("POST", "/api/auth/forgot-password", {
        body: { email },
        ip: `198.51.100.${i + 1}`,
      });
      expect(ok.status).toBe(200);
    }
    const limited = await t.call("POST", "/api/auth/forgot-password", {
      body: { email },
      ip: "198.51.100.9",
    });
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBeDefined();
    // One client asking for many addresses: 3 × 4 per hour.
    const statuses: number[] = [];
    for (let i = 0; i < 13; i++) {
      const r = await t.call("POST", "/api/auth/forgot-password", {
        body: { email: address("spray") },
        ip: "198.51.100.50",
      });
      statuses.push(r.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe("verifying the address", () => {
  it("registration mails a link; the account works at once and is verified by the link", async () => {
    const email = address("verify");
    const { token } = await t.signUp({ email });
    const before = await me(token);
    expect(before.status).toBe(200);
    expect(before.body.email_verified).toBe(false);
    // Not verified: non-essential mail is held back.
    expect(await t.ctx.mail.mayReceive(before.body.id, "status")).toBe(false);
    const mail = await mailTo(email, /Verify your e-mail address/);
    const resent = await t.call("POST", "/api/auth/verify-email/resend", { token });
    expect(resent.body.message).toBe(accountMessages.verifySent);
    await mailTo(email, /Verify your e-mail address/, 2);
    const ok = await t.call("POST", "/api/auth/verify-email", {
      body: { token: linkToken(mail, "/verify-email") },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe(accountMessages.verified);
    expect((await me(token)).body.email_verified).toBe(true);
    expect(await t.ctx.mail.mayReceive(before.body.id, "status")).toBe(true);
  });

  it("changing the e-mail needs the password, a link to the new address, and tells the old one", async () => {
    const email = address("old");
    const next = address("new");
    const { token } = await t.signUp({ email });
    const wrong = await t.call("POST", "/api/auth/me/email", {
      token,
      body: { email: next, password: "Wrong1234" },
    });
    expect(wrong.status).toBe(403);
    const asked = await t.call("POST", "/api/auth/me/email", {
      token,
      body: { email: next, password: "Passw0rdOk" },
    });
    expect(asked.status).toBe(200);
    expect((await me(token)).body).toMatchObject({ email, pending_email: next });
    const link = await mailTo(next, /Confirm your new e-mail address/);
    const done = await t.call("POST", "/api/auth/verify-email", {
      body: { token: linkToken(link, "/verify-email") },
    });
    expect(done.body.message).toBe(accountMessages.emailChanged);
    expect((await me(token)).body).toMatchObject({
      email: next,
      email_verified: true,
      pending_email: null,
    });
    const notice = await mailTo(email, /e-mail address was changed/);
    expect(notice.text).toContain(next);
  });
});

describe("changing the password", () => {
  it("needs the current password and ends the other sessions", async () => {
    const email = address("change");
    const { token, password } = await t.signUp({ email });
    const other = (await t.call("POST", "/api/auth/login", { body: { email, password } })).body
      .access_token as string;
    const wrong = await t.call("POST", "/api/auth/me/password", {
      token,
      body: { current_password: "Nope12345", new_password: "Changed0Pass" },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.detail).toBe(accountMessages.wrongCurrentPassword);
    const ok = await t.call("POST", "/api/auth/me/password", {
      token,
      body: { current_password: password, new_password: "Changed0Pass" },
    });
    expect(ok.status).toBe(200);
    expect((await me(token)).status).toBe(200);
    expect((await me(other)).status).toBe(401);
    await mailTo(email, /password was changed/);
  });
});
