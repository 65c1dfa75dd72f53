import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Ctx } from "../../context.ts";
import type { StripeSim } from "../stripe/index.ts";
import { registerDestinationControl } from "./destinations.ts";
import { registerDriveControl } from "./drive.ts";
import { CONTROL as c, handle } from "./handle.ts";
import { registerInstagramControl } from "./instagram.ts";
import { registerSignals } from "./signals.ts";
import { registerStripeControl } from "./stripe.ts";
import { registerTokenControl } from "./tokens.ts";

export { driveListing } from "./drive.ts";
export { addPosts } from "./instagram.ts";

/** The control API (`/_control`): the sandbox's clock, faults, call counts and demo data. */
export function registerControl(app: FastifyInstance, ctx: Ctx, stripe: StripeSim): void {
  app.get(c, async () => ({
    now: new Date(ctx.now()).toISOString(),
    endpoints: "see sandbox/README.md",
    calls: ctx.calls,
  }));

  app.post(`${c}/reset`, async () => {
    await ctx.reset();
    return { ok: true, now: new Date(ctx.now()).toISOString() };
  });

  app.get(`${c}/clock`, async () => ({
    now: new Date(ctx.now()).toISOString(),
    offset_seconds: ctx.clock.offsetMs / 1000,
  }));
  app.post(
    `${c}/clock`,
    handle(
      z.object({ advance_seconds: z.number().optional(), set: z.string().optional() }),
      (b) => {
        if (b.set !== undefined) {
          const t = Date.parse(b.set);
          if (Number.isNaN(t)) throw new Error("bad date");
          ctx.clock.set(t);
        }
        if (b.advance_seconds !== undefined) ctx.clock.advance(b.advance_seconds);
        ctx.changed();
        stripe.tick();
        return {
          now: new Date(ctx.now()).toISOString(),
          offset_seconds: ctx.clock.offsetMs / 1000,
        };
      },
    ),
  );

  app.post(
    `${c}/latency`,
    handle(z.object({ ms: z.number().int().min(0), endpoint: z.string().optional() }), (b) => {
      if (b.endpoint) ctx.latency.endpoints[b.endpoint] = b.ms;
      else ctx.latency.all = b.ms;
      return ctx.latency;
    }),
  );

  app.get(`${c}/faults`, async () => ({ faults: ctx.faults, cuts: ctx.cuts }));
  app.post(
    `${c}/faults`,
    handle(
      z.object({
        endpoint: z.string().min(1),
        count: z.number().int().min(1).default(1),
        error: z
          .string()
          .regex(
            /^(graph:\d+|http:\d{3}|drive:\w+|stripe:\w+|google:\w+|s3:\w+|dropbox:\w+|onedrive:\w+|reset)$/,
          ),
        retry_after: z.number().int().min(0).optional(),
        message: z.string().optional(),
      }),
      (b) => {
        ctx.faults.push({
          endpoint: b.endpoint,
          remaining: b.count,
          error: b.error,
          retryAfter: b.retry_after,
          message: b.message,
        });
        return { faults: ctx.faults };
      },
    ),
  );
  app.delete(`${c}/faults`, async () => {
    ctx.faults.length = 0;
    ctx.cuts.length = 0;
    return { ok: true };
  });

  app.get(`${c}/calls`, async () => ({ calls: ctx.calls, peak_in_flight: ctx.peakInFlight }));
  app.delete(`${c}/calls`, async () => {
    ctx.calls = {};
    // The peaks start again from the requests still being handled.
    ctx.peakInFlight = Object.fromEntries(Object.entries(ctx.inFlight).filter(([, n]) => n > 0));
    return { ok: true };
  });

  app.post(
    `${c}/graph/usage`,
    handle(
      z.object({
        app_call_count: z.number().min(0).max(100).nullable().optional(),
        buc_call_count: z.number().min(0).max(100).nullable().optional(),
        regain_minutes: z.number().min(0).optional(),
        buc_budget_per_day: z.number().int().min(1).optional(),
        app_budget_per_hour: z.number().int().min(1).optional(),
      }),
      (b) => {
        if (b.app_call_count !== undefined) ctx.usage.appCallCount = b.app_call_count ?? undefined;
        if (b.buc_call_count !== undefined) ctx.usage.bucCallCount = b.buc_call_count ?? undefined;
        if (b.regain_minutes !== undefined) ctx.usage.regainMinutes = b.regain_minutes;
        if (b.buc_budget_per_day) ctx.bucBudgetPerDay = b.buc_budget_per_day;
        if (b.app_budget_per_hour) ctx.appBudgetPerHour = b.app_budget_per_hour;
        return {
          usage: ctx.usage,
          buc_budget_per_day: ctx.bucBudgetPerDay,
          app_budget_per_hour: ctx.appBudgetPerHour,
        };
      },
    ),
  );
  app.post(
    `${c}/config`,
    handle(z.object({ ig_token_shape: z.enum(["wrapped", "flat"]).optional() }), (b) => {
      if (b.ig_token_shape) ctx.igTokenShape = b.ig_token_shape;
      return { ig_token_shape: ctx.igTokenShape };
    }),
  );

  registerTokenControl(app, ctx);
  registerSignals(app, ctx);
  registerInstagramControl(app, ctx);
  registerDriveControl(app, ctx);
  registerDestinationControl(app, ctx);
  registerStripeControl(app, ctx, stripe);
}

export function clearBlobs(dir: string): void {
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { force: true, recursive: true });
}
