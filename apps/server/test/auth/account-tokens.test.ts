import { accountMessages } from "@keepsake/contracts";
import type { SandboxMail } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { deliverMailJob } from "../../src/mail/mail.jobs.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until } from "../support/wait.ts";

// Issue 35: forgot-password and registration do the same work whether or not an account has
// the address; every outstanding link ends with a password change, a reset or an e-mail change.

describe("the same work either way (no worker runs: only the request's statements count)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  /** The statements `run` made and the jobs it queued (kind and fields, not values). */
  async function work(run: () => Promise<{ status: number; body: unknown }>) {
    const before = t.statements();
    const res = await run();
    const statements = t.statements() - before;
    return { status: res.status, body: res.body, statements };
  }
  const queued = async () => {
    const jobs = await t.ctx.queue.boss.findJobs("account-mail");
    return jobs.map((j) => ({ ...(j.data as Record<string, unknown>) }));
  };

  it("forgot-password: same answer, statements and queued job for an account and a stranger", async () => {
    const { user } = await t.signUp({ email: "known.same@example.com" });
    const known = await work(() =>
      t.call("POST", "/api/auth/forgot-password", { body: { email: user.email }, ip: "192.0.2.1" }),
    );
    const unknown = await work(() =>
      t.call("POST", "/api/auth/forgot-password", {
        body: { email: "stranger.same@example.com" },
        ip: "192.0.2.2",
      }),
    );
    expect(known.status).toBe(200);
    expect(unknown).toEqual(known);
    const jobs = (await queued()).filter((j) => j.kind === "password-reset");
    expect(jobs.map((j) => j.email).sort()).toEqual([
      "known.same@example.com",
      "stranger.same@example.com",
    ]);
    expect(Object.keys(jobs[0]!).sort()).toEqual(Object.keys(jobs[1]!).sort());
    // No token and no mail yet for either: the job decides, after the answer.
    const tokens = await t.ctx.db.selectFrom("account_tokens").select("id").execute();
    expect(tokens).toHaveLength(0);
  });

  it("registration: the same statements for a new and a taken address", async () => {
    await t.signUp({ email: "taken.same@example.com" });
    const body = (email: string) => ({ full_name: "Same Work", email, password: "Sam3Work" });
    const fresh = await work(() =>
      t.call("POST", "/api/auth/register", { body: body("new.same@example.com"), ip: "192.0.2.3" }),
    );
    const taken = await work(() =>
      t.call("POST", "/api/auth/register", {
        body: body("taken.same@example.com"),
        ip: "192.0.2.4",
      }),
    );
    expect(taken.status).toBe(fresh.status);
    expect(taken.statements).toBe(fresh.statements);
    const jobs = (await queued()).filter((j) => j.kind === "registration");
    const last = jobs.filter((j) => String(j.email).endsWith(".same@example.com"));
    expect(last.map((j) => [j.email, j.created]).sort()).toEqual([
      ["known.same@example.com", true], // the test above's sign-up
      ["new.same@example.com", true],
      ["taken.same@example.com", false],
      ["taken.same@example.com", true],
    ]);
  });
});

describe("every outstanding link ends", () => {
  let t: SandboxedApp;
  beforeAll(async () => {
    t = await createSandboxedApp(
      { APP_URL: "http://keepsake.test" },
      { jobs: [deliverMailJob, accountMailJob] },
    );
    await t.ctx.queue.work(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  let n = 0;
  const address = (name: string) => `${name}.${++n}.${Date.now()}@example.com`;
  async function mailTo(to: string, subject: RegExp): Promise<SandboxMail> {
    const list = await until(
      async () => {
        const res = await fetch(`${t.sandbox.url}/_control/mail?to=${encodeURIComponent(to)}`);
        return (await res.json()) as SandboxMail[];
      },
      (l) => l.some((m) => subject.test(m.subject)),
      20_000,
    );
    return list.find((m) => subject.test(m.subject))!;
  }
  const tokenIn = (mail: SandboxMail, path: string) =>
    new RegExp(`${path}\\?token=([\\w-]+)`).exec(mail.text)![1]!;
  /** A reset link and a pending e-mail change's link, both live. */
  async function twoLinks(email: string, session: string, password: string) {
    const next = address("next");
    await t.call("POST", "/api/auth/forgot-password", { body: { email }, ip: "192.0.2.50" });
    const reset = tokenIn(await mailTo(email, /Reset your/), "/reset-password");
    const asked = await t.call("POST", "/api/auth/me/email", {
      token: session,
      body: { email: next, password },
      ip: "192.0.2.51",
    });
    expect(asked.status).toBe(200);
    const change = tokenIn(await mailTo(next, /Confirm your new/), "/verify-email");
    return { reset, change };
  }
  const useReset = (token: string) =>
    t.call("POST", "/api/auth/reset-password", { body: { token, password: "Later0Pass" } });
  const useChange = (token: string) =>
    t.call("POST", "/api/auth/verify-email", { body: { token } });

  it("a password change ends reset links and pending e-mail changes", async () => {
    const email = address("change");
    const { token, password } = await t.signUp({ email });
    const links = await twoLinks(email, token, password);
    const changed = await t.call("POST", "/api/auth/me/password", {
      token,
      body: { current_password: password, new_password: "Changed0Pass" },
    });
    expect(changed.status).toBe(200);
    const reset = await useReset(links.reset);
    expect(reset.status).toBe(422);
    expect(reset.body.detail).toBe(accountMessages.resetInvalid);
    const change = await useChange(links.change);
    expect(change.status).toBe(422);
    expect(change.body.detail).toBe(accountMessages.verifyInvalid);
  });

  it("a reset ends the pending e-mail change", async () => {
    const email = address("reset");
    const { token, password } = await t.signUp({ email });
    const links = await twoLinks(email, token, password);
    expect((await useReset(links.reset)).status).toBe(200);
    const change = await useChange(links.change);
    expect(change.status).toBe(422);
    expect(change.body.detail).toBe(accountMessages.verifyInvalid);
  });

  it("an e-mail change ends reset links sent to the old address", async () => {
    const email = address("moved");
    const { token, password } = await t.signUp({ email });
    const links = await twoLinks(email, token, password);
    expect((await useChange(links.change)).body.message).toBe(accountMessages.emailChanged);
    const reset = await useReset(links.reset);
    expect(reset.status).toBe(422);
    expect(reset.body.detail).toBe(accountMessages.resetInvalid);
  });
});
