import type { Clock } from "../lib/clock.ts";
import type { ServiceLog } from "../lib/log.ts";
import { asError } from "../lib/log.ts";
import type { AlertSources } from "./alert-sources.ts";
import type { AlertContext, AlertDefinition } from "./alerts/define.ts";
import { alertRegistry } from "./alerts/registry.ts";
import { weeklyDigest } from "./alerts/weekly-digest.ts";
import type { NotificationsRepository } from "./notifications.repository.ts";
import type { NotificationsService } from "./notifications.service.ts";

export interface AlertsDeps {
  notifications: Pick<
    NotificationsService,
    "notify" | "mailOnly" | "byKey" | "openAlerts" | "resolve"
  >;
  repo: NotificationsRepository;
  sources: AlertSources;
  clock: Clock;
  log?: ServiceLog;
}

/**
 * Runs the alerts of the registry (`alerts/registry.ts`, one file per alert): hands each event
 * another area reports (a connection ended, a backup failed for good, a Stripe event) to every
 * alert's hook, and runs their periodic checks and resolutions in the `alerts-check` job and the
 * digest in `weekly-digest`. Every alert has a key that names its event, so detecting it again
 * adds nothing.
 */
export function createAlerts(deps: AlertsDeps) {
  const { notifications, clock } = deps;
  const registry = alertRegistry;
  const ctx: AlertContext = {
    notify: notifications.notify,
    mailOnly: notifications.mailOnly,
    byKey: notifications.byKey,
    openAlerts: notifications.openAlerts,
    resolve: notifications.resolve,
    repo: deps.repo,
    sources: deps.sources,
    clock,
  };
  type Hooks = NonNullable<AlertDefinition["hooks"]>;
  /** Every alert's hook for one event; an alert never fails the work that reported it. */
  const hook =
    <K extends keyof Hooks>(name: K) =>
    async (
      ...args: Parameters<NonNullable<Hooks[K]>> extends [...infer A, AlertContext] ? A : never
    ) => {
      for (const alert of registry) {
        const fn = alert.hooks?.[name] as ((...a: unknown[]) => Promise<void>) | undefined;
        if (!fn) continue;
        try {
          await fn(...args, ctx);
        } catch (err) {
          // The periodic checks catch up.
          deps.log?.error({ err: asError(err) }, `alert (${name}) failed`);
        }
      }
    };

  return {
    /** Hooks for the other areas (never throw: an alert does not fail the work that reported it). */
    connectionLost: hook("connectionLost"),
    backupFailed: hook("backupFailed"),
    billingEvent: hook("billingEvent"),
    /** A connection made again (the OAuth callback): its open alerts are resolved at once. */
    connectionsRestored: hook("connectionsRestored"),
    /** Dropbox, OneDrive or S3 storage lost, and connected again. */
    destinationLost: hook("destinationLost"),
    destinationRestored: hook("destinationRestored"),

    /**
     * The periodic checks (the `alerts-check` job): first the alerts whose cause was fixed are
     * resolved, then each alert's detection runs; each event once, however often it runs.
     */
    async check(): Promise<Record<string, number>> {
      const now = clock.now();
      const fixed: string[] = [];
      for (const alert of registry) fixed.push(...((await alert.fixed?.(ctx, now)) ?? []));
      const counts: Record<string, number> = { resolved: await notifications.resolve(fixed) };
      for (const alert of registry) {
        if (alert.check) counts[alert.check.name] = await alert.check.run(ctx, now);
      }
      return counts;
    },

    /** The `weekly-digest` job: one e-mail per user who turned it on, per ISO week. */
    weeklyDigest: () => weeklyDigest(ctx, clock.now()),
  };
}

export type Alerts = ReturnType<typeof createAlerts>;
