import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { backupHelpers, FAST_ENGINE } from "./backup.ts";
import { createSandboxedApp, type SandboxedApp } from "./sandbox.ts";

type Connected = Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;

/**
 * The backup fault suites' setup (backup.faults*.test.ts): one Pro user with the business account
 * and Drive connected, its posts listed and nothing backed up (each test backs up the posts it
 * needs); before each test the sandbox's faults and call counts are cleared. `get()` answers the
 * app, its backup helpers and the user once `beforeAll` ran.
 */
export function backupFaultsSuite() {
  /** Waits the engine asked for; nothing really sleeps, so storms run fast and are inspectable. */
  const sleeps: number[] = [];
  /** What the engine logged, as the runtime's JSON logger would receive it. */
  const logged: { level: string; obj: object; msg: string }[] = [];
  let t: SandboxedApp | undefined;
  let h: ReturnType<typeof backupHelpers>;
  let user: Connected;
  const app = () => {
    if (!t) throw new Error("the app starts in beforeAll");
    return t;
  };

  beforeAll(async () => {
    t = await createSandboxedApp(
      {},
      {
        sandbox: { largeVideoBytes: 3 * 1024 * 1024 },
        log: {
          warn: (obj, msg) => logged.push({ level: "warn", obj, msg }),
          error: (obj, msg) => logged.push({ level: "error", obj, msg }),
        },
        engineSettings: {
          ...FAST_ENGINE,
          sleep: async (ms) => {
            sleeps.push(ms);
          },
        },
      },
    );
    h = backupHelpers(t);
    user = await h.connectedUser({ tier: "pro" });
    // List the posts without backing anything up: each test backs up the posts it needs.
    expect((await h.listPosts(user)).result.outcome).toBe("done");
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(async () => {
    sleeps.length = 0;
    await h.control("/faults", { method: "DELETE" });
    await h.control("/calls", { method: "DELETE" });
  });

  /** A post of the business account: a feed image, a carousel, or a video of 1–4 MB. */
  async function pick(kind: "image" | "carousel" | "video", skip = 0) {
    const media = await h.media();
    const candidates = media.filter((x) =>
      kind === "image"
        ? x.media_type === "IMAGE"
        : kind === "carousel"
          ? x.media_type === "CAROUSEL_ALBUM"
          : x.media_type === "VIDEO" &&
            !x.media_url_withheld &&
            (x.video_bytes ?? 0) > 1024 * 1024 &&
            (x.video_bytes ?? 0) < 4 * 1024 * 1024,
    );
    const chosen = candidates[skip];
    if (!chosen) throw new Error(`no ${kind} post in the demo account`);
    return app()
      .ctx.db.selectFrom("posts")
      .selectAll()
      .where("instagram_id", "=", chosen.id)
      .executeTakeFirstOrThrow();
  }

  /** Queues a backup the way the retry endpoint does and runs it up to `attempts` times. */
  async function backUp(postId: string, attempts = 1) {
    const { ctx } = app();
    await ctx.backups.retry(user.user.id, postId);
    let outcome: Awaited<ReturnType<typeof ctx.backupEngine.run>> | undefined;
    for (let i = 0; i < attempts; i++) {
      outcome = await ctx.backupEngine.run(postId, { retryCount: i, retryLimit: 5 });
      if (outcome.outcome !== "retry") break;
    }
    const backup = await ctx.db
      .selectFrom("backups")
      .selectAll()
      .where("post_id", "=", postId)
      .executeTakeFirstOrThrow();
    return { outcome, backup };
  }

  const fault = (endpoint: string, error: string, count = 1, retryAfter?: number) =>
    h.control("/faults", {
      body: {
        endpoint,
        error,
        count,
        ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
      },
    });

  async function copiesOf(mediaId: string) {
    return (await h.driveFiles()).filter(
      (f) => !f.trashed && f.appProperties.keepsakeMediaId === mediaId,
    );
  }

  return { get: () => ({ t: app(), h, user }), sleeps, logged, pick, backUp, fault, copiesOf };
}
