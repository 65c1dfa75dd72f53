// The fleet of `npm run bench:sync` (sync.bench.ts): worker processes of their own, synthetic
// sandbox accounts inserted in bulk and synced once, and rounds of queued scheduled syncs.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { encryptSecret } from "../src/lib/crypto.ts";
import { syncAccountJob } from "../src/sync/jobs/sync-account.job.ts";
import type { backupHelpers } from "../test/support/backup.ts";
import type { SandboxedApp } from "../test/support/sandbox.ts";

const WORKER = fileURLToPath(new URL("../test/support/worker-process.ts", import.meta.url));
export const secrets = {
  JWT_SECRET: randomBytes(32).toString("hex"),
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};
export const log = (...a: unknown[]) => console.error("[bench]", ...a);

export interface Worker {
  child: ChildProcess;
  /** Database queries this process has sent so far. */
  queries(): Promise<number>;
}

export function startWorker(t: SandboxedApp): Promise<Worker> {
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...process.env,
      ...secrets,
      WORKER_ENGINE: "default",
      WORKER_COUNT_QUERIES: "1",
      WORKER_DATABASE_URL: t.database.url,
      WORKER_SANDBOX_URL: t.sandbox.url,
      DATA_DIR: `/tmp/keepsake-bench-sync-${process.pid}`,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const waiting: ((n: number) => void)[] = [];
  let ready: () => void;
  const started = new Promise<void>((r) => {
    ready = r;
  });
  child.stdout?.on("data", (d) => {
    for (const line of String(d).split("\n")) {
      if (line.includes("ready")) ready();
      const m = /^queries (\d+)/.exec(line);
      if (m) waiting.shift()?.(Number(m[1]));
    }
  });
  child.on("exit", (c) => {
    if (c) log(`worker exited ${c}`);
  });
  return started.then(() => ({
    child,
    queries: () =>
      new Promise<number>((resolve) => {
        waiting.push(resolve);
        child.kill("SIGUSR2");
      }),
  }));
}

export type SandboxAccount = {
  id: string;
  user_id: string;
  username: string;
  access_token: string;
};
/** N synthetic sandbox accounts, each connected to its own pro user and synced once. */
export async function seed(t: SandboxedApp, h: ReturnType<typeof backupHelpers>, count: number) {
  const { accounts } = await h.control<{ accounts: SandboxAccount[] }>("/instagram/accounts", {
    body: { count, posts: 12 },
  });
  const ids = await insertAccounts(t, accounts);
  // The first sync of each (no latency yet), then everything counts as backed up.
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < ids.length; i = next++) await refreshSync(t, ids[i]!);
    }),
  );
  await sql`INSERT INTO backups (post_id, user_id, account_id, status)
            SELECT id, user_id, account_id, 'completed' FROM posts
            ON CONFLICT (post_id) DO NOTHING`.execute(t.ctx.db);
  return ids;
}

/** One sync that lists the account's posts (no backup), run in this process. */
export async function refreshSync(t: SandboxedApp, accountId: string) {
  const account = await t.ctx.accountsRepo.accountWithOwner(accountId);
  const job = await t.ctx.syncRepos.runs.insertSyncJob({
    user_id: account!.user_id,
    account_id: account!.id,
    job_type: "manual",
    mode: "refresh",
    now: t.clock.now(),
  });
  return t.ctx.syncEngine.run(
    { accountId: account!.id, syncJobId: job!.id, kind: "manual", mode: "refresh" },
    { retryCount: 0, retryLimit: 0 },
  );
}

export async function insertAccounts(t: SandboxedApp, accounts: SandboxAccount[]) {
  const key = Buffer.from(secrets.ENCRYPTION_KEY, "hex");
  const now = new Date();
  const ids: string[] = [];
  for (let i = 0; i < accounts.length; i += 500) {
    const batch = accounts.slice(i, i + 500);
    const users = await t.ctx.db
      .insertInto("users")
      .values(
        batch.map((a) => ({
          email: `${a.username}@bench.example`,
          password_hash: "x",
          subscription_tier: "pro" as const,
        })),
      )
      .returning("id")
      .execute();
    const rows = await t.ctx.db
      .insertInto("instagram_accounts")
      .values(
        batch.map((a, j) => ({
          user_id: users[j]!.id,
          instagram_user_id: a.user_id,
          connected_via: "instagram" as const,
          username: a.username,
          account_type: "BUSINESS",
          access_token_encrypted: encryptSecret(key, a.access_token),
          token_issued_at: now,
          token_expires_at: new Date(now.getTime() + 50 * 86_400_000),
        })),
      )
      .returning(["id", "user_id"])
      .execute();
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/**
 * The singleton keys of one round of queued syncs: the scheduler's key plus the round's number.
 * pg-boss's queue monitor records which keys were active and its fetch skips those until its
 * next reading (a minute or more); the bench re-queues the same accounts seconds after syncing
 * them, which the scheduler never does (10 minutes apart), and with one key for every round
 * some syncs waited minutes for no reason the product has.
 */
let rounds = 0;
export function newRoundKeys(): (accountId: string) => string {
  const round = ++rounds;
  return (accountId) => `sync:${accountId}:scheduled:${round}`;
}

/** Queues a scheduled sync of every account and waits until each has ended (since `marker`). */
export async function syncAll(
  t: SandboxedApp,
  ids: string[],
  mode: "backup" | "refresh",
  marker: Date,
) {
  const roundKey = newRoundKeys();
  await t.ctx.queue.insert(
    syncAccountJob,
    ids.map((accountId) => ({
      data: { accountId, kind: "scheduled" as const, mode },
      singletonKey: roundKey(accountId),
    })),
  );
  for (;;) {
    const r = await sql<{ n: string }>`
      SELECT count(*) AS n FROM sync_jobs WHERE started_at >= ${marker} AND status <> 'running'`.execute(
      t.ctx.db,
    );
    if (Number(r.rows[0]?.n) >= ids.length) return;
    await new Promise((res) => setTimeout(res, 200));
  }
}
