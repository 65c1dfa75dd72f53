import { createHash } from "node:crypto";
import { DEMO_GOOGLE, DEMO_IG } from "@keepsake/sandbox";
import type { EngineSettings } from "../../src/sync/engine-settings.ts";
import type { SandboxedApp } from "./sandbox.ts";

/** Engine settings for tests: tiny waits, small chunks (several per video), short leases. */
export const FAST_ENGINE: Partial<EngineSettings> = {
  chunkBytes: 512 * 1024,
  multipartMaxBytes: 256 * 1024,
  leaseMs: 4000,
  leaseRenewMs: 1000,
  maxPacingPauseMs: 20,
  backoff: { baseMs: 2, maxMs: 40, attempts: 4, maxInlineWaitMs: 5000 },
};

export interface DriveListing {
  id: string;
  name: string;
  folder: string;
  path: string;
  isFolder: boolean;
  size: number | null;
  md5Checksum: string | null;
  appProperties: Record<string, string>;
  description: string | null;
  createdTime: string;
  trashed: boolean;
}

export interface SandboxMedia {
  id: string;
  media_type: "IMAGE" | "VIDEO" | "CAROUSEL_ALBUM";
  media_product_type?: string;
  timestamp: string;
  pinned: boolean;
  media_url_withheld: boolean;
  children: string[];
  video_bytes: number | null;
}

export function backupHelpers(t: SandboxedApp) {
  const control = async <T>(path: string, init?: { method?: string; body?: unknown }) => {
    const res = await fetch(`${t.sandbox.url}/_control${path}`, {
      method: init?.method ?? (init?.body ? "POST" : "GET"),
      headers: init?.body ? { "content-type": "application/json" } : {},
      ...(init?.body ? { body: JSON.stringify(init.body) } : {}),
    });
    if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  return {
    control,

    /** The account's row of account_sync_state (last sync, history, Graph usage). */
    syncState(accountId: string) {
      return t.ctx.db
        .selectFrom("account_sync_state")
        .selectAll()
        .where("account_id", "=", accountId)
        .executeTakeFirstOrThrow();
    },

    /** Signs up a user and connects a new sandbox Instagram account of `posts` posts. */
    async userWithAccount(posts: number) {
      const u = await t.signUp();
      const { accounts } = await control<{ accounts: { id: string }[] }>("/instagram/accounts", {
        body: { count: 1, posts },
      });
      await t.connectInstagram(u.token, accounts[0]!.id);
      const account = await t.ctx.db
        .selectFrom("instagram_accounts")
        .select(["id", "username"])
        .where("user_id", "=", u.user.id)
        .executeTakeFirstOrThrow();
      return { u, account };
    },

    /** Signs up a user and connects the business demo account and a Google Drive. */
    async connectedUser(
      opts: {
        instagram?: string;
        google?: string;
        tier?: "free" | "premium" | "pro" | "agency";
        /**
         * Connecting starts the first sync at once. Tests that drive syncs themselves start
         * without it (its row and its queued job are removed) unless this is true.
         */
        firstSync?: boolean;
      } = {},
    ) {
      const u = await t.signUp();
      await t.connectInstagram(u.token, opts.instagram ?? DEMO_IG.business.id);
      await t.connectDrive(u.token, opts.google ?? DEMO_GOOGLE.jordan.sub);
      if (opts.tier) await t.setTier(u.user.id, opts.tier);
      const account = await t.ctx.db
        .selectFrom("instagram_accounts")
        .selectAll()
        .where("user_id", "=", u.user.id)
        .executeTakeFirstOrThrow();
      if (!opts.firstSync) {
        await t.ctx.pool.query(
          `DELETE FROM ${t.ctx.queueSchema}.job WHERE name = 'sync-account' AND data->>'accountId' = $1`,
          [account.id],
        );
        await t.rows.sync.deleteSyncJobsOfUser(u.user.id);
      }
      return { ...u, accountId: account.id };
    },

    /**
     * Runs what the workers would: the sync itself, then every backup it queued (retrying those
     * that ask for it), until none is pending. Answers the sync job's row.
     */
    async syncAndDrain(userId: string, accountId: string, mode: "backup" | "refresh" = "backup") {
      const started = await t.ctx.sync.runs.start(userId, accountId);
      const syncJobId = started.sync_job.id;
      const before = t.statements();
      const r = await t.ctx.syncEngine.run(
        { accountId, syncJobId, kind: "manual", mode },
        { retryCount: 0, retryLimit: 3 },
      );
      /** SQL statements the sync itself ran (not the start, not the backups). */
      const statements = t.statements() - before;
      await this.drain(userId);
      return { result: r, job: await t.ctx.syncRepos.runs.findSyncJob(syncJobId), statements };
    },

    /** Runs pending backups of the user (three at a time) until none is left. */
    async drain(userId: string, maxRounds = 12) {
      const attempts = new Map<string, number>();
      for (let round = 0; round < maxRounds; round++) {
        const pending = await t.ctx.db
          .selectFrom("backups")
          .select("post_id")
          .where("user_id", "=", userId)
          .where("status", "=", "pending")
          .execute();
        if (pending.length === 0) return;
        const queue = pending.map((p) => p.post_id);
        const worker = async () => {
          for (let id = queue.shift(); id; id = queue.shift()) {
            const n = attempts.get(id) ?? 0;
            attempts.set(id, n + 1);
            await t.ctx.backupEngine.run(id, { retryCount: n, retryLimit: 3 });
          }
        };
        await Promise.all([worker(), worker(), worker()]);
      }
    },

    driveFiles: async (email: string = DEMO_GOOGLE.jordan.email) =>
      (await control<{ files: DriveListing[] }>(`/drive/files?email=${encodeURIComponent(email)}`))
        .files,

    /** A Drive file's content, read with the newest live Google access token the sandbox issued. */
    async driveContent(fileId: string) {
      type Tokens = {
        tokens: {
          token: string;
          provider: string;
          kind: string;
          revoked: boolean;
          expires_at: string | null;
        }[];
      };
      const live = (await control<Tokens>("/tokens")).tokens.filter(
        (x) => x.provider === "google" && x.kind === "access" && !x.revoked,
      );
      const token = live.at(-1)?.token;
      const res = await fetch(
        `${t.sandbox.url}/www.googleapis.com/drive/v3/files/${fileId}?alt=media`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      if (!res.ok) throw new Error(`Drive download ${fileId}: ${res.status} ${await res.text()}`);
      return res.text();
    },

    media: async (account: string = DEMO_IG.business.username) =>
      (await control<{ media: SandboxMedia[] }>(`/instagram/${account}/media`)).media,

    calls: async () => (await control<{ calls: Record<string, number> }>("/calls")).calls,

    backups: (userId: string) =>
      t.ctx.db.selectFrom("backups").selectAll().where("user_id", "=", userId).execute(),

    /**
     * Lists the account's posts without backing anything up: a manual refresh, run here in
     * this process rather than by a queue worker.
     */
    async listPosts(user: { user: { id: string }; accountId: string }) {
      const started = await t.ctx.sync.runs.refreshPosts(user.user.id, user.accountId);
      const result = await t.ctx.syncEngine.run(
        {
          accountId: user.accountId,
          syncJobId: started.sync_job.id,
          kind: "manual",
          mode: "refresh",
        },
        { retryCount: 0, retryLimit: 3 },
      );
      return { syncJobId: started.sync_job.id, result };
    },

    /** Records every post of the user but `keep` (Instagram ids) as already backed up. */
    async leaveOnlyToBackUp(userId: string, keep: Set<string>) {
      const posts = await t.ctx.db
        .selectFrom("posts")
        .select(["id", "user_id", "account_id", "instagram_id"])
        .where("user_id", "=", userId)
        .execute();
      const done = posts.filter((p) => !keep.has(p.instagram_id));
      if (done.length === 0) return;
      await t.rows.backups.insertBackups(
        done.map((p) => ({
          post_id: p.id,
          user_id: p.user_id,
          account_id: p.account_id,
          status: "completed" as const,
        })),
      );
    },
  };
}

export const md5 = (b: Uint8Array) => createHash("md5").update(b).digest("hex");

/**
 * Sandbox call counters that are not requests of their own but a breakdown of one: the upload
 * POST (`drive.upload`) is also counted by kind, and a download also counts as a `files.get`.
 */
const BREAKDOWNS: Record<string, string> = {
  "drive.upload.multipart": "drive.upload",
  "drive.upload.resumable.start": "drive.upload",
  "drive.files.download": "drive.files.get",
};

/** Requests per endpoint under the given prefixes, each request counted once. */
export function requestsByEndpoint(calls: Record<string, number>, ...prefixes: string[]) {
  const mine = Object.entries(calls)
    .filter(([k]) => prefixes.some((p) => k.startsWith(p)))
    .sort(([a], [b]) => a.localeCompare(b));
  const lines: string[] = [];
  let total = 0;
  for (const [endpoint, n] of mine) {
    if (BREAKDOWNS[endpoint]) continue;
    total += n;
    const parts = mine
      .filter(([k]) => BREAKDOWNS[k] === endpoint)
      .map(([k, v]) => `${k.slice(endpoint.length + 1)} ${v}`);
    lines.push(
      `    ${endpoint.padEnd(28)} ${String(n).padStart(6)}${parts.length ? `  (${parts.join(", ")})` : ""}`,
    );
  }
  return { total, lines };
}

/** Requests per endpoint id (breakdown counters left out), e.g. `{ "drive.upload": 2 }`. */
export function requests(calls: Record<string, number>, prefix: string): Record<string, number> {
  return Object.fromEntries(
    Object.entries(calls).filter(([k]) => k.startsWith(prefix) && !BREAKDOWNS[k]),
  );
}
