import type { JobInsert, Queue, SendOptions } from "pg-boss";
import type { z } from "zod";

/** Retry and expiry defaults for every queue; a job definition may override them. */
export const QUEUE_DEFAULTS = {
  retryLimit: 5,
  retryDelay: 5,
  retryBackoff: true,
  retryDelayMax: 300,
  expireInSeconds: 15 * 60,
  deleteAfterSeconds: 7 * 24 * 3600,
} as const satisfies Omit<Queue, "name">;

export interface JobDefinition<TPayload extends z.ZodType, TDeps> {
  name: string;
  payload: TPayload;
  /** pg-boss queue options (policy, retries); merged over QUEUE_DEFAULTS. */
  queue?: Omit<Queue, "name">;
  /** How many jobs of this kind one worker process runs at once. */
  concurrency?: number;
  /** How often an idle worker asks for a job of this kind (seconds, at least 0.5). */
  pollingIntervalSeconds?: number;
  /** A cron schedule (UTC) on which the job is sent with `scheduleData`. */
  cron?: string;
  scheduleData?: z.input<TPayload>;
  handler(
    payload: z.output<TPayload>,
    deps: TDeps,
    job: {
      id: string;
      retryCount: number;
      /**
       * Aborted when this worker shuts down and the grace period is over: a handler that can stop
       * cleanly (releasing what it holds) throws; the job is then handed back to the queue, not
       * failed, and another worker resumes it.
       */
      signal?: AbortSignal;
    },
  ): Promise<void>;
}

/** Declares a job; the identity function exists to infer the payload type. */
export function defineJob<TPayload extends z.ZodType, TDeps>(
  def: JobDefinition<TPayload, TDeps>,
): JobDefinition<TPayload, TDeps> {
  return def;
}

/**
 * What code that queues jobs needs from the queue. A sender does not run handlers, so it
 * accepts a job whatever its handler needs (handlers are methods: their parameters compare
 * both ways, and `unknown` admits every dependency shape).
 */
export interface JobSender {
  /** Validates the payload and enqueues it; null when a singleton policy dropped it. */
  send<P extends z.ZodType>(
    job: JobDefinition<P, unknown>,
    payload: z.input<P>,
    options?: SendOptions,
  ): Promise<string | null>;
  /** Validates and enqueues many jobs of one kind in one statement. */
  insert<P extends z.ZodType>(
    job: JobDefinition<P, unknown>,
    jobs: (Omit<JobInsert, "data"> & { data: z.input<P> })[],
  ): Promise<void>;
}
