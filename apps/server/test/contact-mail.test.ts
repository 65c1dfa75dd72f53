import type { SandboxMail } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverMailJob } from "../src/mail/mail.jobs.ts";
import { createSandboxedApp, type SandboxedApp } from "./support/sandbox.ts";
import { until } from "./support/wait.ts";

// The contact form's mails: an acknowledgement to the sender, an admin's reply kept and mailed.
let t: SandboxedApp;
let admin: Awaited<ReturnType<SandboxedApp["signUp"]>>;
beforeAll(async () => {
  t = await createSandboxedApp({}, { jobs: [deliverMailJob] });
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
    expect(ack!.subject).toBe("We got your message: Stories");
    expect(ack!.text).toContain("Are stories kept?");

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
});
