import type { SandboxMail } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { deliverMailJob } from "../../src/mail/mail.jobs.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until } from "../support/wait.ts";

// The contact form's mails: an acknowledgement to the sender, an admin's reply kept and mailed.
let t: SandboxedApp;
let admin: Awaited<ReturnType<SandboxedApp["signUp"]>>;
beforeAll(async () => {
  t = await createSandboxedApp(
    { MAIL_HOURLY_CAP_CONTACT: "3" },
    { jobs: [deliverMailJob, accountMailJob] },
  );
  await t.ctx.queue.work(t.ctx);
  admin = await t.signUp({ email: "mail.admin@example.com" });
  await t.rows.auth.updateUser(admin.user.id, { is_admin: true });
});
afterAll(async () => {
  await t?.close();
});

async function inbox(to: string): Promise<SandboxMail[]> {
  const res = await fetch(`${t.sandbox.url}/_control/mail?to=${encodeURIComponent(to)}`);
  return (await res.json()) as SandboxMail[];
}

describe("contact mails", () => {
  it("acknowledges a message, and an admin's reply is mailed and kept with it", async () => {
    const sender = "grace@example.com";
    const sent = await t.call("POST", "/api/contact", {
      body: { name: "Grace", email: sender, subject: "Stories", message: "Are stories kept?" },
      ip: "203.0.113.77",
    });
    expect(sent.status).toBe(201);
    const [ack] = await until(
      () => inbox(sender),
      (l) => l.length === 1,
    );
    // Issue 35: fixed text; nothing submitted is repeated to the address the form was given.
    expect(ack!.subject).toBe("We got your message");
    expect(ack!.text).toContain("We got the message sent through the Keepsake contact form");
    for (const part of [ack!.text, ack!.html, ack!.subject])
      for (const submitted of ["Grace", "Stories", "Are stories kept?"])
        expect(part).not.toContain(submitted);

    const bad = await t.call("POST", `/api/admin/messages/${sent.body.id}/reply`, {
      token: admin.token,
      body: { body: "  " },
    });
    expect(bad.status).toBe(422);
    const notAdmin = await t.signUp();
    const refused = await t.call("POST", `/api/admin/messages/${sent.body.id}/reply`, {
      token: notAdmin.token,
      body: { body: "Hi" },
    });
    expect(refused.status).toBe(403);

    const replied = await t.call("POST", `/api/admin/messages/${sent.body.id}/reply`, {
      token: admin.token,
      body: { body: "Yes: every story, within its 24 hours." },
    });
    expect(replied.status).toBe(201);
    expect(replied.body.handled_at).not.toBeNull();
    expect(replied.body.replies).toEqual([
      expect.objectContaining({ body: "Yes: every story, within its 24 hours." }),
    ]);
    const mails = await until(
      () => inbox(sender),
      (l) => l.length === 2,
    );
    expect(mails[0]!.subject).toBe("Re: Stories");
    expect(mails[0]!.text).toContain("Yes: every story, within its 24 hours.");
    expect(mails[0]!.text).toContain("Are stories kept?");
    const list = await until(
      () => t.call("GET", "/api/admin/messages", { token: admin.token }),
      (r) => r.body.messages[0]?.replies[0]?.mail_status === "sent",
    );
    expect(list.body.messages[0].replies).toHaveLength(1);
  });

  it("acknowledges an address once a day, and no more than the hourly cap across everyone; every message is kept", async () => {
    const outboxAcks = () =>
      t.ctx.db
        .selectFrom("mail_outbox")
        .select(["to_address", "idempotency_key"])
        .where("template", "=", "contact-ack")
        .execute();
    const before = (await outboxAcks()).length; // the test above's
    const submit = (email: string, ip: string) =>
      t.call("POST", "/api/contact", {
        body: { name: "Flood", email, subject: "Hi", message: "Click here" },
        ip,
      });
    // One address twice from two networks: one acknowledgement.
    expect((await submit("twice@example.com", "198.51.100.1")).status).toBe(201);
    expect((await submit("twice@example.com", "198.51.100.2")).status).toBe(201);
    expect((await outboxAcks()).filter((r) => r.to_address === "twice@example.com")).toHaveLength(
      1,
    );
    // A parallel burst from as many networks to as many addresses: the cap (3 an hour) holds.
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) => submit(`victim${i}@example.com`, `203.0.113.${100 + i}`)),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(await outboxAcks()).toHaveLength(3);
    expect(before).toBe(1);
    const admin_ = await t.call("GET", "/api/admin/messages?limit=50", { token: admin.token });
    expect(admin_.body.total).toBe(9);
    // An hour later the cap has room again.
    t.clock.advance(3_600_000 + 1000);
    expect((await submit("later@example.com", "203.0.113.200")).status).toBe(201);
    expect((await outboxAcks()).map((r) => r.to_address)).toContain("later@example.com");
  });
});
