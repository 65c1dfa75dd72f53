import { PgBoss } from "pg-boss";
import { asError } from "../lib/log.ts";
import { type JobDefinition, type JobSender, QUEUE_DEFAULTS } from "./job.ts";

// biome-ignore lint/suspicious/noExplicitAny: a registry holds jobs of every payload type
export type AnyJob<TDeps> = JobDefinition<any, TDeps>;

/** The states a queue's jobs are counted in (`stats`, the `keepsake_jobs` gauge). */
/** The schema pg-boss keeps its tables in, in Keepsake's database. */
export const QUEUE_SCHEMA = "pgboss";

export const JOB_STATES = ["waiting", "scheduled", "active", "failed"] as const;
/** One queue's jobs per state, and how long (seconds) its oldest ready job has waited. */
export type QueueStats = { queue: string; delay: number } & Record<
  (typeof JOB_STATES)[number],
  number
>;

export interface JobQueue<TDeps> extends JobSender {
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
  /**
   * Per queue: jobs waiting (ready to run), scheduled for later, active, and failed (kept for
   * `deleteAfterSeconds`), and how long the oldest waiting one has waited (seconds, 0 if none).
   */
  stats(): Promise<QueueStats[]>;
  /** Creates the schema and queues (idempotent). Every role that sends must start. */
  start(): Promise<void>;
  /** Whether `start` finished and `stop` has not begun (readiness). */
  isStarted(): boolean;
  /** Starts handlers and schedules: only worker roles call this. */
  work(deps: TDeps): Promise<void>;
  /**
   * Stops fetching jobs, lets the running ones finish for `graceMs` (default 10 s), then aborts
   * the rest, gives their handlers up to `unwindMs` (5 s) to stop, and hands their jobs back to
   * the queue as they were (ready at once, the attempt not counted), so another worker resumes
   * them.
   */
  stop(options?: { graceMs?: number; unwindMs?: number }): Promise<void>;
  boss: PgBoss;
}

/**
 * How often each worker slot fetches on its own. The queue's polling interval is kept by one
 * idle slot at a time (`work`); this only bounds how long a job could wait if a wake-up were
 * lost.
 */
const BACKSTOP_POLL_SECONDS = 30;

/** Waits for `promise`, at most `ms`. */
async function within(ms: number, promise: Promise<unknown>) {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
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
    // A job sent to a queue wakes its idle workers at once (LISTEN/NOTIFY) instead of waiting
    // for their next poll; polling stays as the backstop, and the only mode where NOTIFY is
    // unavailable (pg-boss then warns and polls).
    useListenNotify: true,
    // How often this process rereads each queue's settings and its list of keys running (which
    // its fetches skip); pg-boss's default is a minute, which is how long a job handed back or
    // failed over by another worker could wait here.
    queueCacheIntervalSeconds: 10,
    ...(options.superviseIntervalSeconds
      ? {
          superviseIntervalSeconds: options.superviseIntervalSeconds,
          monitorIntervalSeconds: options.superviseIntervalSeconds,
        }
      : {}),
  });
  /** Set as pg-boss's own stop begins (the end of `stop`). */
  let closing = false;
  boss.on("error", (emitted) => {
    const err = asError(emitted);
    // The handlers stopped and handed back above settle after pg-boss closed its connection: it
    // then tries to complete them (its attempt fence would make that a no-op) and reports the
    // closed connection. Not a fault of a graceful stop.
    if (closing && err.message.startsWith("Database connection is not opened")) return;
    options.onError?.(err);
  });
  let started = false;
  /** The jobs this process's handlers are running, by job id. */
  const running = new Map<
    string,
    { name: string; controller: AbortController; settled: Promise<void> }
  >();
  let idle: (() => void) | null = null;
  /** This process's worker slots per queue, woken when this process sends them a job. */
  const slots = new Map<string, string[]>();
  /** The slots running a job now. */
  const busy = new Set<string>();
  /** The timers that have one idle slot of each queue poll (cleared by `stop`). */
  const pollers: NodeJS.Timeout[] = [];
  /** One idle slot of the queue fetches now (none when every slot is running a job). */
  const wakeIdle = (name: string) => {
    const id = slots.get(name)?.find((x) => !busy.has(x));
    if (id) boss.notifyWorker(id);
  };
  // NOTIFY wakes workers in every process; a job sent in this process also wakes this
  // process's slots at once, without waiting for the notification's round trip.
  const wake = (name: string) => {
    for (const id of slots.get(name) ?? []) boss.notifyWorker(id);
  };

  /**
   * Puts a job this process was running back in the queue as if never started: ready at once,
   * and its next claim does not count as a retry (pg-boss counts a claim of a job that was
   * started before). Only while it is still active here; a job whose handler finished meanwhile
   * was completed or failed by pg-boss. It goes back as `retry`, or as `created` when a `stately`
   * queue (one job per key and state) already holds a retry of the same key.
   */
  async function handBack(name: string, id: string) {
    for (const state of ["retry", "created"]) {
      try {
        // The job's key also leaves the queue's list of keys running (`singletons_active`, kept
        // by pg-boss's monitor): a worker's fetch skips the keys on that list, so a worker that
        // starts now would otherwise leave the job waiting until the monitor's next pass and its
        // own next read of the list (a minute each by default).
        await boss.getDb().executeSql(
          `WITH back AS (
             UPDATE ${options.schema}.job
                SET state = $3::${options.schema}.job_state, started_on = NULL,
                    heartbeat_on = NULL, start_after = now()
              WHERE name = $1 AND id = $2 AND state = 'active'
              RETURNING singleton_key)
           UPDATE ${options.schema}.queue q
              SET singletons_active = array_remove(q.singletons_active, back.singleton_key)
             FROM back
            WHERE q.name = $1 AND back.singleton_key IS NOT NULL`,
          [name, id, state],
        );
        return;
      } catch (err) {
        options.onError?.(asError(err));
      }
    }
  }

  /**
   * Sets the queues' lists of keys running to the keys of their active jobs, as pg-boss's monitor
   * does. A monitor pass (of any process) that read the jobs before a hand-back committed writes
   * the handed-back key into the list again after it; done once such a pass has had time to end,
   * so the next worker is not kept off the job until the monitor's next pass.
   */
  async function relistRunningKeys(names: string[]) {
    try {
      await boss.getDb().executeSql(
        `UPDATE ${options.schema}.queue q
            SET singletons_active = (
              SELECT array_agg(j.singleton_key) FROM ${options.schema}.job j
               WHERE j.name = q.name AND j.state = 'active' AND j.singleton_key IS NOT NULL
                 AND j.policy IN ('singleton', 'stately'))
          WHERE q.name = ANY($1::text[])`,
        [names],
      );
    } catch (err) {
      options.onError?.(asError(err));
    }
  }

  return {
    boss,
    async send(job, payload, sendOptions) {
      const data = job.payload.parse(payload);
      const id = await boss.send(job.name, data as object, sendOptions);
      wake(job.name);
      return id;
    },
    async insert(job, jobs) {
      if (jobs.length === 0) return;
      await boss.insert(
        job.name,
        jobs.map((j) => ({ ...j, data: job.payload.parse(j.data) as object })),
      );
      wake(job.name);
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
    async stats() {
      const { rows } = await boss.getDb().executeSql(
        `SELECT name,
                count(*) FILTER (WHERE state IN ('created', 'retry') AND start_after <= now())::int AS waiting,
                count(*) FILTER (WHERE state IN ('created', 'retry') AND start_after > now())::int AS scheduled,
                count(*) FILTER (WHERE state = 'active')::int AS active,
                count(*) FILTER (WHERE state = 'failed')::int AS failed,
                coalesce(extract(epoch FROM now() - min(start_after)
                  FILTER (WHERE state IN ('created', 'retry') AND start_after <= now())), 0)::float8 AS delay
           FROM ${options.schema}.job
          WHERE name = ANY($1::text[])
          GROUP BY name`,
        [options.jobs.map((j) => j.name)],
      );
      const byName = new Map(rows.map((r) => [String(r.name), r]));
      return options.jobs.map((j) => {
        const r = byName.get(j.name);
        return {
          queue: j.name,
          waiting: Number(r?.waiting ?? 0),
          scheduled: Number(r?.scheduled ?? 0),
          active: Number(r?.active ?? 0),
          failed: Number(r?.failed ?? 0),
          delay: Number(r?.delay ?? 0),
        };
      });
    },
    isStarted: () => started,
    async start() {
      if (started) return;
      await boss.start();
      started = true;
      const existing = new Set((await boss.getQueues()).map((q) => q.name));
      for (const job of options.jobs) {
        const { retryDelayMax, ...rest } = { ...QUEUE_DEFAULTS, notify: true, ...job.queue };
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
        const polling = job.pollingIntervalSeconds ?? options.pollingIntervalSeconds ?? 2;
        // One pg-boss worker per slot, so each knows its id: a slot that just finished a job asks
        // for the next one at once (the queue may hold more) rather than after its poll delay.
        // Polling (which only finds jobs whose start time came: NOTIFY wakes every slot for a job
        // sent) is one idle slot's fetch per interval, whatever the number of slots; a slot that
        // gets a job wakes another idle one, so due jobs spread over the slots at once. Each
        // slot's own poll is only a backstop.
        const backstop = Math.max(polling, BACKSTOP_POLL_SECONDS);
        for (let slot = 0; slot < (job.concurrency ?? 1); slot++) {
          let workerId = "";
          workerId = await boss.work(
            job.name,
            {
              batchSize: 1,
              localConcurrency: 1,
              pollingIntervalSeconds: backstop,
              notifyPollingIntervalSeconds: backstop,
            },
            async ([j]) => {
              if (!j) return;
              busy.add(workerId);
              wakeIdle(job.name);
              const controller = new AbortController();
              let settle = () => {};
              const settled = new Promise<void>((r) => {
                settle = r;
              });
              running.set(j.id, { name: job.name, controller, settled });
              try {
                const payload = job.payload.parse(j.data);
                await job.handler(payload, deps, {
                  id: j.id,
                  retryCount: j.retryCount ?? 0,
                  signal: controller.signal,
                });
              } catch (err) {
                // Stopped by a shutdown: neither completed nor failed; stop() hands it back.
                if (controller.signal.aborted) return new Promise<never>(() => {});
                throw err;
              } finally {
                running.delete(j.id);
                busy.delete(workerId);
                settle();
                if (running.size === 0) idle?.();
                boss.notifyWorker(workerId);
              }
            },
          );
          slots.set(job.name, [...(slots.get(job.name) ?? []), workerId]);
        }
        const poller = setInterval(() => wakeIdle(job.name), polling * 1000);
        poller.unref();
        pollers.push(poller);
        if (job.cron)
          await boss.schedule(job.name, job.cron, job.scheduleData ?? {}, { tz: "UTC" });
      }
    },
    async stop({ graceMs = 10_000, unwindMs = 5_000 } = {}) {
      const names = [...slots.keys()];
      slots.clear();
      for (const poller of pollers.splice(0)) clearInterval(poller);
      if (!started) return;
      started = false;
      // No new jobs: every slot stops asking (the running handlers go on).
      await Promise.all(names.map((name) => boss.offWork(name, { wait: false })));
      await within(
        graceMs,
        new Promise<void>((resolve) => {
          idle = resolve;
          if (running.size === 0) resolve();
        }),
      );
      const left = [...running.entries()];
      for (const [, r] of left) r.controller.abort();
      await within(unwindMs, Promise.all(left.map(([, r]) => r.settled)));
      for (const [id, r] of left) await handBack(r.name, id);
      if (left.length > 0) {
        await new Promise((r) => setTimeout(r, 250));
        await relistRunningKeys([...new Set(left.map(([, r]) => r.name))]);
      }
      // What is still active is ours no longer (pg-boss's own shutdown fails only active jobs).
      closing = true;
      await boss.stop({ graceful: false });
    },
  };
}
