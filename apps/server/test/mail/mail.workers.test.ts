import type { SandboxMail } from "@keepsake/sandbox";
import { describe, expect, it } from "vitest";
import { INTERRUPTED } from "../../src/mail/mail.service.ts";
import { until } from "../support/wait.ts";
import { startWorker, t, workerProcessSuite } from "../support/worker-suite.ts";

// Worker processes as `npm run worker` runs them, against the sandbox's SMTP server.
workerProcessSuite();

const MAIL_ENV = { MAIL_SMTP_TIMEOUT_SECONDS: "8", MAIL_RETRY_BASE_SECONDS: "0.5" };

async function inbox(to: string): Promise<SandboxMail[]> {
  const res = await fetch(`${t.sandbox.url}/_control/mail?to=${encodeURIComponent(to)}`);
  return (await res.json()) as SandboxMail[];
}
const row = (id: string) =>
  t.ctx.db.selectFrom("mail_outbox").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("mail with worker processes", () => {
  it("a worker killed after the SMTP server took the message: the next worker never sends it again", async () => {
    const to = "killed.mid.send@example.com";
    // The server keeps the message and never answers: the worker is killed while it waits.
    const res = await fetch(`${t.sandbox.url}/_control/mail/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ error: "stall", count: 1 }),
    });
    expect(res.status).toBe(200);
    const { id } = (await t.ctx.mail.sendToAddress(to, {
      key: `kill-test:${to}`,
      template: "contact-reply",
      data: { name: "Ada", subject: "Kill", reply: "Mid-send.", original: "Hi" },
    })) as { id: string };
    const doomed = await startWorker("mail-doomed", MAIL_ENV);
    await until(
      () => inbox(to),
      (l) => l.length === 1,
      30_000,
    );
    expect((await row(id)).phase).toBe("data");
    doomed.kill("SIGKILL");

    await startWorker("mail-survivor", MAIL_ENV);
    const settled = await until(
      () => row(id),
      (r) => r.status === "failed",
      90_000,
    );
    expect(settled.last_error).toBe(INTERRUPTED);
    expect(await inbox(to)).toHaveLength(1);

    // The next message goes out normally, once.
    const next = "after.kill@example.com";
    const again = (await t.ctx.mail.sendToAddress(next, {
      key: `kill-test:${next}`,
      template: "contact-reply",
      data: { name: "Ada", subject: "After", reply: "Once.", original: "Hi" },
    })) as { id: string };
    await until(
      () => row(again.id),
      (r) => r.status === "sent",
      30_000,
    );
    expect(await inbox(next)).toHaveLength(1);
  }, 180_000);
});
