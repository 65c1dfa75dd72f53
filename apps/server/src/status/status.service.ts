import { createHash, randomBytes } from "node:crypto";
import type { StatusComponent, StatusResponse } from "@keepsake/contracts";
import { overallStatus } from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { ServiceLog } from "../lib/log.ts";
import { asError } from "../lib/log.ts";
import type { MailService } from "../mail/index.ts";
import type { CallRecorder } from "./call-stats.ts";
import type { StatusRepository } from "./status.repository.ts";
import {
  ALL_COMPONENTS,
  type Assessment,
  type ComponentId,
  DESTINATION_COMPONENTS,
  formatDuration,
  jobsStatus,
  type LiveComponents,
  providerStatus,
  STATUS_RULES,
  worse,
} from "./status.rules.ts";

export interface StatusServiceDeps {
  repo: StatusRepository;
  clock: Clock;
  calls: Pick<CallRecorder, "flush">;
  queue: { oldestReadyAge(): Promise<number | null> };
  /** Whether the API answers its health check (the worker's probe). */
  probeApi(): Promise<boolean>;
  workerId: string;
  /** New addresses one client address may subscribe per hour. */
  subscribeMaxPerHour: number;
  /** Status updates by e-mail (double opt-in, incident mails); absent: none are sent. */
  mail?: Pick<MailService, "sendToAddress" | "resubscribeAddress">;
  /** Keepsake's public origin, for the links in those mails. */
  appUrl?: string;
  log?: ServiceLog;
}

const digest = (token: string) => createHash("sha256").update(token).digest("hex");

/** How long a confirmation link works (issue 35: before, for ever). */
export const CONFIRM_TTL_MS = 24 * 3_600_000;
/** Confirmation links one unconfirmed address can be sent in a day. */
export const CONFIRM_MAILS_PER_DAY = 3;

/**
 * The status page from live health data. `current` judges every component now; a worker runs
 * `sample` every minute: it records a heartbeat and one sample per component (for 90-day
 * uptime), and opens an incident for a component not operational for more than 5 minutes,
 * resolving it when the component recovers.
 */
export function createStatusService(deps: StatusServiceDeps) {
  const { repo, clock } = deps;

  async function database(): Promise<Assessment> {
    const started = Date.now();
    try {
      await repo.ping();
    } catch {
      return { status: "down", detail: "The database does not answer" };
    }
    const ms = Date.now() - started;
    return ms > STATUS_RULES.databaseSlowMs
      ? { status: "degraded", detail: `The database answered in ${ms} ms` }
      : { status: "operational", detail: "The database answers" };
  }

  /**
   * Judges every component now. The destinations other than Drive are judged, and listed, only
   * when they had calls in the last day or their last sample was not operational (so an
   * incident of theirs is seen through to its end); none while the database is down.
   */
  async function current(api: Assessment): Promise<LiveComponents> {
    const now = clock.now();
    const db = await database();
    if (db.status === "down") {
      const unknown = { status: "down" as const, detail: "Unknown while the database is down" };
      return { api, database: db, jobs: unknown, instagram: unknown, google: unknown };
    }
    const [heartbeat, queueAge, totals, lastDay, states] = await Promise.all([
      repo.lastHeartbeat(),
      deps.queue.oldestReadyAge().catch(() => null),
      repo.callTotals(new Date(now.getTime() - STATUS_RULES.providerWindowMs)),
      repo.callTotals(new Date(now.getTime() - STATUS_RULES.destinationListedMs)),
      repo.components(),
    ]);
    const live: LiveComponents = {
      api,
      database: db,
      jobs: jobsStatus(heartbeat, queueAge, now),
      instagram: providerStatus(totals.get("instagram")),
      google: providerStatus(totals.get("google")),
    };
    for (const d of DESTINATION_COMPONENTS) {
      const called = (lastDay.get(d.id)?.calls ?? 0) > 0;
      const troubled = states.some((c) => c.component === d.id && c.status !== "operational");
      if (called || troubled) live[d.id] = providerStatus(totals.get(d.id));
    }
    return live;
  }

  /** The components `live` judged, in the page's order, each with its assessment. */
  const listed = (live: LiveComponents) =>
    ALL_COMPONENTS.flatMap((c) => {
      const a = live[c.id];
      return a ? [{ ...c, assessment: a }] : [];
    });

  /**
   * Tells every confirmed subscriber of each incident not yet told that it opened, or that it
   * resolved, then records it as told. The incident is recorded first and told after, so a
   * worker that dies between the two (or mail that cannot be queued) leaves it untold, and the
   * next sample tells it; each mail's outbox key (incident, state, address) keeps a second try
   * from sending it twice (two workers sampling at once included). A failure with one incident
   * is logged and the others are told; the next sample tries it again.
   */
  async function tellSubscribers(now: Date) {
    const mail = deps.mail;
    if (!mail) return;
    const untold = await repo.untoldIncidents();
    if (untold.length === 0) return;
    const subscribers = await repo.confirmedSubscribers();
    for (const incident of untold) {
      try {
        const tell = async (state: "opened" | "resolved", duration: string | null) => {
          for (const email of subscribers) {
            await mail.sendToAddress(email, {
              key: `status-incident:${incident.id}:${state}:${email}`,
              template: "status-incident",
              data: {
                incidentId: incident.id,
                title: incident.title,
                description: incident.description,
                state,
                duration,
                statusUrl: `${deps.appUrl ?? ""}/status`,
              },
            });
          }
          await repo.markTold(incident.id, state, now);
        };
        if (!incident.opened_told_at) await tell("opened", null);
        if (incident.resolved_at && !incident.resolved_told_at) {
          const lasted =
            new Date(incident.resolved_at).getTime() - new Date(incident.started_at).getTime();
          await tell("resolved", formatDuration(lasted));
        }
      } catch (err) {
        deps.log?.error(
          { err: asError(err), incident: incident.id },
          "status incident mail failed",
        );
      }
    }
  }

  /** Keeps each component's streak and its incident in step with the new status. */
  async function track(id: ComponentId, a: Assessment, now: Date) {
    const name = ALL_COMPONENTS.find((c) => c.id === id)!.name;
    const previous = (await repo.components()).find((c) => c.component === id);
    const ok = a.status === "operational";
    const sameStreak = previous && (previous.status === "operational") === ok;
    const since = sameStreak ? new Date(previous.since) : now;
    await repo.saveComponent({ component: id, status: a.status, since, checked_at: now });
    const open = await repo.openIncident(id);
    if (ok) {
      if (open) await repo.updateIncident(open.id, { resolved_at: now });
      return;
    }
    const status = a.status as "degraded" | "down";
    const title = `${name} ${status === "down" ? "outage" : "degraded"}`;
    if (open) {
      const worst = worse(open.worst_status, status) as "degraded" | "down";
      if (worst !== open.worst_status)
        await repo.updateIncident(open.id, { worst_status: worst, title });
    } else if (now.getTime() - since.getTime() > STATUS_RULES.incidentAfterMs) {
      const incident = {
        component: id,
        title,
        description: `${a.detail}.`,
        worst_status: status,
        started_at: since,
      };
      await repo.insertIncident(incident);
    }
  }

  return {
    async report(): Promise<StatusResponse> {
      const now = clock.now();
      await deps.calls.flush().catch(() => {});
      const live = await current({ status: "operational", detail: "The API answers" });
      const [uptime, incidents] = await Promise.all([
        repo.uptime(new Date(now.getTime() - STATUS_RULES.uptimeWindowMs)).catch(() => new Map()),
        repo
          .recentIncidents(new Date(now.getTime() - STATUS_RULES.uptimeWindowMs), 10)
          .catch(() => []),
      ]);
      const components: StatusComponent[] = listed(live).map((c) => {
        const u = uptime.get(c.id);
        return {
          id: c.id,
          name: c.name,
          ...c.assessment,
          uptime: u && u.total > 0 ? Math.floor((10_000 * u.up) / u.total) / 100 : null,
          ...(c.destination ? { destination: c.destination } : {}),
        };
      });
      return {
        status: overallStatus(components),
        checked_at: now.toISOString(),
        components,
        incidents: incidents.map((i) => {
          const end = i.resolved_at ? new Date(i.resolved_at) : now;
          return {
            id: i.id,
            component: i.component,
            date: new Date(i.started_at).toISOString(),
            title: i.title,
            description: i.description,
            status: i.resolved_at ? ("resolved" as const) : ("ongoing" as const),
            duration: formatDuration(end.getTime() - new Date(i.started_at).getTime()),
          };
        }),
      };
    },

    /** A worker's heartbeat (also recorded when a worker starts). */
    heartbeat: () => repo.heartbeat(deps.workerId, clock.now()),

    async sample() {
      const now = clock.now();
      await repo.heartbeat(deps.workerId, now);
      await deps.calls.flush();
      const up = await deps.probeApi().catch(() => false);
      const live = await current(
        up
          ? { status: "operational", detail: "The API answers" }
          : { status: "down", detail: "The API does not answer its health check" },
      );
      const minute = new Date(now.getTime() - (now.getTime() % 60_000));
      const judged = listed(live);
      await repo.recordSamples(
        minute,
        judged.map((c) => ({ component: c.id, status: c.assessment.status })),
      );
      for (const c of judged) await track(c.id, c.assessment, now);
      await tellSubscribers(now);
      await repo.prune(
        new Date(now.getTime() - STATUS_RULES.uptimeWindowMs),
        new Date(now.getTime() - 86_400_000),
      );
      return live;
    },

    /**
     * Double opt-in: records the address unconfirmed and mails it a confirmation link; nothing
     * else is sent to it until the link is opened. The same answer whether or not the address
     * was already on the list.
     */
    async subscribe(email: string, ip: string) {
      const now = clock.now();
      const token = randomBytes(24).toString("base64url");
      const result = await repo.subscribe(
        { email, ip, now, tokenHash: digest(token) },
        {
          max: deps.subscribeMaxPerHour,
          since: new Date(now.getTime() - 3_600_000),
          resendAfter: new Date(now.getTime() - 10 * 60_000),
          perAddressPerDay: CONFIRM_MAILS_PER_DAY,
        },
      );
      if ("limitedSince" in result) {
        const wait = result.limitedSince.getTime() + 3_600_000 - now.getTime();
        const seconds = Math.max(1, Math.ceil(wait / 1000));
        throw new AppError(
          "too_many",
          `Too many subscriptions from your network. Please try again in ${Math.ceil(seconds / 60)} minute(s).`,
          { retryAfterSeconds: seconds },
        );
      }
      if (result.send && deps.mail) {
        const queued = await deps.mail.sendToAddress(email, {
          key: `status-confirm:${email}:${digest(token).slice(0, 16)}`,
          template: "status-confirm",
          data: { url: `${deps.appUrl ?? ""}/status/confirm?token=${token}` },
          cap: "status-confirm",
        });
        // Over the global hourly cap: no link went out, so the answer must not say one did.
        if (queued.id === null && queued.retryAfterSeconds) {
          throw new AppError(
            "too_many",
            `We're sending too many confirmation e-mails right now. Please try again in ${Math.ceil(queued.retryAfterSeconds / 60)} minute(s).`,
            { retryAfterSeconds: queued.retryAfterSeconds },
          );
        }
      }
      return {
        message: `Almost there: we've sent a confirmation link to ${email}. Open it to start receiving status updates.`,
      };
    },

    /** The confirmation link: the address receives incident mails from now on. */
    async confirmSubscription(token: string) {
      const now = clock.now();
      const email = await repo.confirm(
        digest(token),
        now,
        new Date(now.getTime() - CONFIRM_TTL_MS),
      );
      if (!email)
        throw new AppError(
          "invalid",
          "This confirmation link is invalid, has expired or was already used.",
        );
      // Confirming again after an unsubscribe turns the updates back on.
      await deps.mail?.resubscribeAddress(email, "status");
      return { message: `${email} will now receive Keepsake status updates.` };
    },
  };
}

export type StatusService = ReturnType<typeof createStatusService>;
