import { DEMO_GOOGLE, DEMO_IG, type SandboxMail } from "@keepsake/sandbox";
import { afterAll, beforeAll } from "vitest";
import { accountMailJob } from "../../src/auth/account-mail.job.ts";
import { backupPostJob } from "../../src/backups/jobs/backup-post.job.ts";
import { deliverMailJob, mailSweepJob } from "../../src/mail/mail.jobs.ts";
import { alertsCheckJob } from "../../src/notifications/alerts.jobs.ts";
import { syncAccountJob } from "../../src/sync/jobs/sync-account.job.ts";
import { backupHelpers, FAST_ENGINE } from "./backup.ts";
import { stripeEnv } from "./billing.ts";
import { peerApps } from "./peers.ts";
import { createSandboxedApp, type SandboxedApp } from "./sandbox.ts";
import { until } from "./wait.ts";

export type Connected = Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;
export const HOUR = 3600_000;

/**
 * The alerts suites' setup (alerts*.test.ts): alerts end to end on the server. The events happen
 * through our engines and hooks against the provider sandbox, mail goes out through the outbox to
 * the sandbox's SMTP server over loopback. Two verified Pro users with Instagram and Drive
 * connected, lumen and maya (whose posts are listed); `get()` answers them once `beforeAll` ran.
 */
export function alertsSuite() {
  let t: SandboxedApp | undefined;
  let h: ReturnType<typeof backupHelpers>;
  let lumen: Connected;
  let maya: Connected;
  let peers: Awaited<ReturnType<typeof peerApps>> | undefined;
  const app = () => {
    if (!t) throw new Error("the app starts in beforeAll");
    return t;
  };

  beforeAll(async () => {
    t = await createSandboxedApp(
      stripeEnv,
      // The sync's queues exist (a sync queues backups); workers run them as in production.
      {
        jobs: [deliverMailJob, mailSweepJob, syncAccountJob, backupPostJob, accountMailJob],
        engineSettings: FAST_ENGINE,
      },
    );
    await t.ctx.queue.work(t.ctx);
    h = backupHelpers(t);
    lumen = await h.connectedUser({ tier: "pro" });
    maya = await h.connectedUser({
      instagram: DEMO_IG.creator.id,
      google: DEMO_GOOGLE.maya.sub,
      tier: "pro",
    });
    await verify(lumen.user.id);
    await verify(maya.user.id);
    await h.listPosts(maya);
  }, 60_000);
  afterAll(async () => {
    await peers?.close();
    await t?.close();
  });

  async function verify(userId: string) {
    await app().rows.auth.updateUser(userId, { email_verified_at: new Date() });
  }

  /**
   * What the sandbox's inbox holds for `to`, without the account e-mails every new user gets
   * (the address verification sent at registration): these files count alerts.
   */
  async function inbox(to: string): Promise<SandboxMail[]> {
    const res = await fetch(`${app().sandbox.url}/_control/mail?to=${encodeURIComponent(to)}`);
    const mails = (await res.json()) as SandboxMail[];
    return mails.filter((m) => m.headers["x-keepsake-category"] !== "account");
  }

  /** Waits until the user's outbox has no message left to send; answers their inbox. */
  async function delivered(user: { user: { id: string; email: string } }) {
    await until(
      () =>
        app()
          .ctx.db.selectFrom("mail_outbox")
          .select("id")
          .where("user_id", "=", user.user.id)
          .where("status", "in", ["queued", "sending"])
          .execute(),
      (open) => open.length === 0,
      20_000,
    );
    return inbox(user.user.email);
  }

  const notificationsOf = async (userId: string, category?: string) =>
    (
      await app()
        .ctx.db.selectFrom("notifications")
        .selectAll()
        .where("user_id", "=", userId)
        .orderBy("created_at")
        .execute()
    ).filter((n) => !category || n.category === category);

  const subjects = (mails: SandboxMail[]) => mails.map((m) => m.subject).sort();
  const runCheck = () => alertsCheckJob.handler({}, app().ctx, { id: "test", retryCount: 0 });

  /**
   * The alerts check run at once by this app and by three other processes' worth of pools on its
   * database (support/peers.ts), as several workers might: what is told once stays once.
   */
  async function raceChecks() {
    const a = app();
    peers ??= await peerApps(a, 3, { SMTP_URL: a.sandbox.urls.smtp });
    await Promise.all(
      [a, ...peers.apps].map((p) =>
        alertsCheckJob.handler({}, p.ctx, { id: "race", retryCount: 0 }),
      ),
    );
  }

  return {
    /** The app, its backup helpers and the two users, once `beforeAll` ran. */
    get: () => ({ t: app(), h, lumen, maya }),
    verify,
    delivered,
    notificationsOf,
    subjects,
    runCheck,
    raceChecks,
  };
}
