import { PgBoss, type SendOptions } from "pg-boss";
import type { z } from "zod";
import { type JobDefinition, QUEUE_DEFAULTS } from "./job.ts";

// biome-ignore lint/suspicious/noExplicitAny: a registry holds jobs of every payload type
export type AnyJob<TDeps> = JobDefinition<any, TDeps>;

export interface JobQueue<TDeps> {
  /** Validates the payload and enqueues it; null when a singleton policy dropped it. */
  send<P extends z.ZodType>(
    job: JobDefinition<P, TDeps>,
    payload: z.input<P>,
    options?: SendOptions,
  ): Promise<string | null>;
  /**
   * Deletes a queue's jobs whose payload `field` is one of `values`: every job, or with
   * `queuedOnly` only those no worker has started.
   */
  purge(
    name: string,
    field: string,
    values: readonly string[],
    options?: { queuedOnly?: boolean },
  ): Promise<number>;
  /** How long (seconds) the oldest job that is ready to run has waited; null when none waits. */
  oldestReadyAge(): Promise<number | null>;
  /** Creates the schema and queues (idempotent). Every role that sends must start. */
  start(): Promise<void>;
  /** Starts handlers and schedules: only worker roles call this. */
  work(deps: TDeps): Promise<void>;
  stop(): Promise<void>;
  boss: PgBoss;
}

export function createJobQueue<TDeps>(options: {
  connectionString: string;
  schema: string;
  jobs: readonly AnyJob<TDeps>[];
  pollingIntervalSeconds?: number;
  /** How often dead workers' jobs (missed heartbeats, expiry) are failed over to retries. */
  superviseIntervalSeconds?: number;
  onError?: (err: Error) => void;
}): JobQueue<TDeps> {
  const boss = new PgBoss({
    connectionString: options.connectionString,
    schema: options.schema,
    max: 5,
    ...(options.superviseIntervalSeconds
      ? {
          superviseIntervalSeconds: options.superviseIntervalSeconds,
          monitorIntervalSeconds: options.superviseIntervalSeconds,
        }
      : {}),
  });
  boss.on("error", (err) => options.onError?.(err));
  let started = false;

  return {
    boss,
    async send(job, payload, sendOptions) {
      const data = job.payload.parse(payload);
      return boss.send(job.name, data as object, sendOptions);
    },
    async purge(name, field, values, purgeOptions = {}) {
      if (values.length === 0) return 0;
      const queued = purgeOptions.queuedOnly ? "AND state IN ('created', 'retry')" : "";
      const result = (await boss.getDb().executeSql(
        `DELETE FROM ${options.schema}.job
            WHERE name = $1 AND data->>$2 = ANY($3::text[]) ${queued}`,
        [name, field, values],
      )) as { rowCount?: number | null };
      return result.rowCount ?? 0;
    },
    async oldestReadyAge() {
      const { rows } = await boss.getDb().executeSql(
        `SELECT extract(epoch FROM now() - min(start_after))::float8 AS age
           FROM ${options.schema}.job
          WHERE state IN ('created', 'retry') AND start_after <= now()`,
      );
      const age = rows[0]?.age;
      return age === null || age === undefined ? null : Number(age);
    },
    async start() {
      if (started) return;
      await boss.start();
      started = true;
      const existing = new Set((await boss.getQueues()).map((q) => q.name));
      for (const job of options.jobs) {
        const { retryDelayMax, ...rest } = { ...QUEUE_DEFAULTS, ...job.queue };
        const queue = rest.retryBackoff ? { ...rest, retryDelayMax } : rest;
        if (!existing.has(job.name)) await boss.createQueue(job.name, queue);
        else {
          // A queue's policy and partitioning are fixed at creation; the rest follows the code.
          const { policy: _policy, partition: _partition, ...changeable } = queue;
          await boss.updateQueue(job.name, changeable);
        }
      }
    },
    async work(deps) {
      for (const job of options.jobs) {
        await boss.work(
          job.name,
          {
            batchSize: 1,
            // While the queue has a backlog (more than one job ready), a worker that just got a job asks again at once.
            burstWhenReadyExceeds: 1,
            localConcurrency: job.concurrency ?? 1,
            pollingIntervalSeconds:
              job.pollingIntervalSeconds ?? options.pollingIntervalSeconds ?? 2,
          },
          async ([j]) => {
            if (!j) return;
            const payload = job.payload.parse(j.data);
            await job.handler(payload, deps, { id: j.id, retryCount: j.retryCount ?? 0 });
          },
        );
        if (job.cron)
          await boss.schedule(job.name, job.cron, job.scheduleData ?? {}, { tz: "UTC" });
      }
    },
    async stop() {
      if (started) await boss.stop({ graceful: true, timeout: 10_000 });
      started = false;
    },
  };
}
