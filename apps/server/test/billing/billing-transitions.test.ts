import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeEnv } from "../support/billing.ts";
import {
  type ConnectionState,
  planTransitions,
  type Subject,
  type Tier,
} from "../support/plan-transitions.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

/**
 * Every plan transition (free ↔ premium ↔ pro ↔ agency, upgrades, downgrades, cancel,
 * past_due), for users with 1, 2 and 5 Instagram accounts in each connection state (all
 * active, one paused by the plan, one revoked), driven through signed Stripe webhooks. After
 * each step: no post, backup or account row is gone, Stripe holds at most one live
 * subscription, and the tier, the paused accounts and the post limit are the plan's.
 */

let t: SandboxedApp;
let p: ReturnType<typeof planTransitions>;

beforeAll(async () => {
  t = await createSandboxedApp(stripeEnv);
  p = planTransitions(t);
});
afterAll(async () => {
  await t?.close();
});

const toPlan = (s: Subject, tier: Tier) => p.toPlan(s, tier);
const pastDue = (s: Subject) => p.pastDue(s);

/** The transitions every subject walks, in this order, each checked. */
const CHAIN: { step: string; run: (s: Subject) => Promise<void>; tier: Tier; status: string }[] = [
  { step: "agency → pro", run: (s) => toPlan(s, "pro"), tier: "pro", status: "active" },
  { step: "pro → premium", run: (s) => toPlan(s, "premium"), tier: "premium", status: "active" },
  { step: "premium → agency", run: (s) => toPlan(s, "agency"), tier: "agency", status: "active" },
  { step: "agency past due", run: pastDue, tier: "agency", status: "past_due" },
  { step: "past due → cancelled", run: (s) => toPlan(s, "free"), tier: "free", status: "free" },
  { step: "free → pro", run: (s) => toPlan(s, "pro"), tier: "pro", status: "active" },
  { step: "pro → agency", run: (s) => toPlan(s, "agency"), tier: "agency", status: "active" },
  { step: "agency → free", run: (s) => toPlan(s, "free"), tier: "free", status: "free" },
  { step: "free → premium", run: (s) => toPlan(s, "premium"), tier: "premium", status: "active" },
  { step: "premium → pro", run: (s) => toPlan(s, "pro"), tier: "pro", status: "active" },
  { step: "pro past due", run: pastDue, tier: "pro", status: "past_due" },
  { step: "pro → free", run: (s) => toPlan(s, "free"), tier: "free", status: "free" },
];

const SUBJECTS: { n: number; state: ConnectionState }[] = [
  { n: 1, state: "active" },
  { n: 1, state: "revoked" },
  { n: 2, state: "active" },
  { n: 2, state: "paused" },
  { n: 2, state: "revoked" },
  { n: 5, state: "active" },
  { n: 5, state: "paused" },
  { n: 5, state: "revoked" },
];

/** The chain's steps, each with the one before it (where it starts), if any. */
const STEPS = CHAIN.map((c, i) => ({ ...c, previous: i === 0 ? null : CHAIN[i - 1]! }));

describe.each(SUBJECTS)("$n account(s), $state", ({ n, state }) => {
  let s: Subject;
  // The set-up: a user on Agency with every account connected; for "paused", then down to
  // Premium keeping the newest account (p.subject checks each plan on the way).
  const start = { tier: state === "paused" ? "premium" : "agency", status: "active" };
  beforeAll(async () => {
    s = await p.subject(n, state);
  });
  // The steps run in order, each on the plan the step before left: a step first checks it
  // starts there, so a failed step fails the next one with where it really started.
  it.each(STEPS)("$step", async ({ run, tier, status, previous }) => {
    const from = previous ?? start;
    const before = await t.call("GET", "/api/subscriptions/current", { token: s.token });
    expect(before.body).toMatchObject({ tier: from.tier, status: from.status });
    await run(s);
    await p.deliverStep();
    await p.expectPlan(s, tier, status);
  });
});
