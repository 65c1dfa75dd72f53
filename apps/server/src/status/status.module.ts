import { hostname } from "node:os";
import type { FastifyInstance } from "fastify";
import { logOf, type ModuleBase } from "../area-module.ts";
import type { MailService } from "../mail/index.ts";
import type { CallRecorder } from "./call-stats.ts";
import { createStatusRepository } from "./status.repository.ts";
import { registerStatusRoutes } from "./status.routes.ts";
import {
  createStatusService,
  type StatusService,
  type StatusServiceDeps,
} from "./status.service.ts";

/**
 * The status page: worker heartbeats, provider call stats, samples, incidents, subscribers. Its
 * call recorder (`createCallRecorder`) is made first: every provider client counts through it.
 */
export function createStatusModule(
  deps: ModuleBase & { calls: CallRecorder; queue: StatusServiceDeps["queue"]; mail: MailService },
) {
  const { config } = deps;
  const status: StatusService = createStatusService({
    repo: createStatusRepository(deps.db),
    clock: deps.clock,
    calls: deps.calls,
    queue: deps.queue,
    workerId: `${hostname()}:${process.pid}`,
    subscribeMaxPerHour: config.STATUS_SUBSCRIBE_MAX_PER_HOUR,
    mail: deps.mail,
    appUrl: config.appUrl,
    ...logOf(deps),
    async probeApi() {
      const res = await fetch(`${config.appUrl}/api/health`, {
        signal: AbortSignal.timeout(5000),
      });
      return res.ok;
    },
  });
  return { status, routes: (app: FastifyInstance) => registerStatusRoutes(app, { status }) };
}
