import type { SandboxMail } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverMailJob } from "../../src/mail/mail.jobs.ts";
import { createStatusRepository } from "../../src/status/status.repository.ts";
import { createStatusService } from "../../src/status/status.service.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until as untilAtMost } from "../support/wait.ts";

// Status updates by e-mail: double opt-in, then incident mails with one-click unsubscribe.
let t: SandboxedApp;
beforeAll(async () => {
  t = await createSandboxedApp(
    { APP_URL: "http://keepsake.test", MAIL_HOURLY_CAP_STATUS_CONFIRM: "8" },
    { jobs: [deliverMailJob] },
  );
  await t.ctx.queue.work(t.ctx);
});
afterAll(async () => {
  await t?.close();
});

const MIN = 60_000;
/**
 * Waits at most 20 s, inside the 30 s test timeout: a wait that fails says what it last saw (the
 * inbox, the outbox rows) instead of only "Test timed out".
 */
const until = <T>(what: () => Promise<T>, ok: (v: T) => boolean) => untilAtMost(what, ok, 20_000);
async function inbox(to: string): Promise<SandboxMail[]> {
  const res = await fetch(`${t.sandbox.url}/_control/mail?to=${encodeURIComponent(to)}`);
  return (await res.json()) as SandboxMail[];
}
const settled = () =>
  until(
    () =>
      t.ctx.db
        .selectFrom("mail_outbox")
        .select("status")
        .where("status", "in", ["queued", "sending"])
        .execute(),
    (rows) => rows.length === 0,
  );

function statusService(probeApi: () => Promise<boolean>) {
  return createStatusService({
    repo: createStatusRepository(t.ctx.db),
    clock: t.clock,
    calls: { flush: async () => {} },
    queue: { oldestReadyAge: async () => null },
    probeApi,
    workerId: "status-mail-test",
    subscribeMaxPerHour: 5,
    mail: t.ctx.mail,
    appUrl: "http://keepsake.test",
  });
}

describe("status subscriptions", () => {
  it("double opt-in: only a confirmation until the link is opened, then incident mails with unsubscribe", async () => {
    let apiUp = true;
    const status = statusService(async () => apiUp);
    const confirmed = "confirmed.watcher@example.com";
    const pending = "pending.watcher@example.com";
    for (const email of [confirmed, pending]) {
      const res = await t.call("POST", "/api/status/subscribe", { body: { email } });
      expect(res.status).toBe(200);
      expect(res.body.message).toMatch(/sent a confirmation link/);
    }
    const [confirmation] = await until(
      () => inbox(confirmed),
      (l) => l.length === 1,
    );
    expect(confirmation!.subject).toBe("Confirm your Keepsake status subscription");
    expect(confirmation!.headers["list-unsubscribe"]).toBeUndefined();
    const token = /status\/confirm\?token=([\w-]+)/.exec(confirmation!.text)![1]!;
    const ok = await t.call("POST", "/api/status/subscribe/confirm", { body: { token } });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe(`${confirmed} will now receive Keepsake status updates.`);
    const reused = await t.call("POST", "/api/status/subscribe/confirm", { body: { token } });
    expect(reused.status).toBe(422);

    // The API fails its health check for more than five minutes: an incident opens.
    apiUp = false;
    await status.sample();
    t.clock.advance(6 * MIN);
    await status.sample();
    await settled();
    const opened = await until(
      () => inbox(confirmed),
      (l) => l.length === 2,
    );
    expect(opened[0]!.subject).toBe("Incident: Web app and API outage");
    expect(opened[0]!.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
    // Nothing but the confirmation went to the unconfirmed address.
    expect((await inbox(pending)).map((m) => m.subject)).toEqual([
      "Confirm your Keepsake status subscription",
    ]);
    // Sampling again does not mail the same incident again.
    await status.sample();
    await settled();
    expect(await inbox(confirmed)).toHaveLength(2);

    apiUp = true;
    t.clock.advance(MIN);
    await status.sample();
    await settled();
    const resolved = await until(
      () => inbox(confirmed),
      (l) => l.length === 3,
    );
    expect(resolved[0]!.subject).toBe("Resolved: Web app and API outage");
    expect(resolved[0]!.text).toMatch(/lasted 7 minutes/);

    // One click, no session: no more incident mails.
    const link = new URL(/^<(.+)>$/.exec(resolved[0]!.headers["list-unsubscribe"]!)![1]!);
    const res = await t.app.inject({
      method: "POST",
      url: `${link.pathname}${link.search}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(res.statusCode).toBe(200);
    apiUp = false;
    await status.sample();
    t.clock.advance(6 * MIN);
    await status.sample();
    await settled();
    expect(await inbox(confirmed)).toHaveLength(3);
  });

  it("an incident a worker recorded but died before telling is told by the next sample, once, however many sample", async () => {
    const status = statusService(async () => true);
    const watcher = "late.watcher@example.com";
    // Only this incident's mails (the test above leaves the API's incident to resolve).
    const told = async () =>
      (await inbox(watcher)).filter((m) => m.subject.includes("Instagram API degraded"));
    await t.rows.status.insertSubscriber({ email: watcher, confirmed_at: t.clock.now() });
    // Instagram failing this minute (it stays degraded until these counts are gone).
    const now = t.clock.now().getTime();
    await t.rows.status.setCallStats({
      provider: "instagram",
      minute: new Date(now - (now % MIN)),
      calls: 20,
      errors: 12,
    });
    // As a worker leaves it when killed between recording the incident and queuing its mails.
    const started = new Date(t.clock.now().getTime() - 9 * MIN);
    const id = await t.rows.status.insertIncident({
      component: "instagram",
      title: "Instagram API degraded",
      description: "12 of 20 calls failed in the last 15 minutes.",
      worst_status: "degraded",
      started_at: started,
    });
    // Two workers sampling at once: told once.
    await Promise.all([status.sample(), statusService(async () => true).sample()]);
    await settled();
    const opened = await until(told, (l) => l.length === 1);
    expect(opened[0]!.subject).toBe("Incident: Instagram API degraded");

    // Resolved, and killed again before telling: the next sample says how long it lasted.
    await t.rows.status.updateIncident(id, { resolved_at: t.clock.now() });
    await status.sample();
    await settled();
    const resolved = await until(told, (l) => l.length === 2);
    expect(resolved[0]!.subject).toBe("Resolved: Instagram API degraded");
    expect(resolved[0]!.text).toMatch(/lasted 9 minutes/);

    // Told is told: later samples send nothing more.
    await t.rows.status.deleteAllCallStats();
    t.clock.advance(MIN);
    await status.sample();
    await status.sample();
    await settled();
    expect(await told()).toHaveLength(2);
    const row = await t.ctx.db
      .selectFrom("status_incidents")
      .select(["opened_told_at", "resolved_told_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.opened_told_at).not.toBeNull();
    expect(row.resolved_told_at).not.toBeNull();
  });

  // Issue 35: links expired never, and an unconfirmed address could be sent one every 10
  // minutes for ever, from any client, without it counting.
  it("a confirmation link expires after 24 hours; resends count against the client and stop after 3 a day", async () => {
    const email = "expiring.watcher@example.com";
    const subscribe = (ip: string) =>
      t.call("POST", "/api/status/subscribe", { body: { email }, ip });
    expect((await subscribe("192.0.2.70")).status).toBe(200);
    const [first] = await until(
      () => inbox(email),
      (l) => l.length === 1,
    );
    await settled();
    expect(first!.text).toContain("The link works for 24 hours.");
    const token = /status\/confirm\?token=([\w-]+)/.exec(first!.text)![1]!;
    t.clock.advance(24 * 60 * MIN + 1000);
    const late = await t.call("POST", "/api/status/subscribe/confirm", { body: { token } });
    expect(late.status).toBe(422);
    expect(late.body.detail).toMatch(/has expired/);

    // Resent (a new day for the address): each resend is the client's, like a new address.
    const ip = "192.0.2.71";
    for (let i = 0; i < 4; i++) {
      expect((await subscribe(ip)).status).toBe(200);
      await settled(); // delivered before the clock moves on under it
      t.clock.advance(11 * MIN);
    }
    // A new link went out for each of the first three only; the fourth of the day is held.
    await settled();
    const links = (await inbox(email)).filter((m) => m.subject.startsWith("Confirm"));
    expect(links).toHaveLength(4);
    const counted = await t.ctx.db
      .selectFrom("status_subscribers")
      .select(["ip", "confirm_mails"])
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    expect(counted).toEqual({ ip, confirm_mails: 3 });
    // The client's hourly limit (5) counts each of its three resends like a new address: two
    // more strangers from the same network within the hour, then 429.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.call("POST", "/api/status/subscribe", {
        body: { email: `counted${i}@example.com` },
        ip,
      });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    // The newest link still works within its day.
    const newest = /status\/confirm\?token=([\w-]+)/.exec(links[0]!.text)![1]!;
    const ok = await t.call("POST", "/api/status/subscribe/confirm", { body: { token: newest } });
    expect(ok.status).toBe(200);
  });

  it("no more confirmation mails than the hourly cap across every client; over it the answer is 429", async () => {
    await settled(); // the test above's mails, before the clock moves on under them
    t.clock.advance(2 * 60 * MIN);
    const answers = [];
    for (let i = 0; i < 10; i++) {
      answers.push(
        await t.call("POST", "/api/status/subscribe", {
          body: { email: `capped${i}@example.com` },
          ip: `198.51.100.${150 + i}`,
        }),
      );
    }
    expect(answers.map((a) => a.status)).toEqual([...Array(8).fill(200), 429, 429]);
    expect(answers[8]!.body.detail).toMatch(/^We're sending too many confirmation e-mails/);
    expect(Number(answers[8]!.headers["retry-after"])).toBeGreaterThan(0);
    await settled();
    const sent = await t.ctx.db
      .selectFrom("mail_outbox")
      .select("to_address")
      .where("template", "=", "status-confirm")
      .where("to_address", "like", "capped%")
      .execute();
    expect(sent).toHaveLength(8);
  });
});
