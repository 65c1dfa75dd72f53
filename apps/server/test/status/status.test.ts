import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDriveClient } from "../../src/providers/google/drive.client.ts";
import { createCallRecorder } from "../../src/status/call-stats.ts";
import { createStatusRepository } from "../../src/status/status.repository.ts";
import { formatDuration, jobsStatus, providerStatus } from "../../src/status/status.rules.ts";
import { createStatusService } from "../../src/status/status.service.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { burst } from "../support/burst.ts";

let t: TestApp;
let sandbox: Sandbox;
beforeAll(async () => {
  [t, sandbox] = await Promise.all([createTestApp(), startSandbox({ port: 0 })]);
});
afterAll(async () => {
  await t.close();
  await sandbox.close();
});

const MIN = 60_000;

describe("status rules", () => {
  it("judges providers by the share and number of failed calls", () => {
    expect(providerStatus(undefined)).toEqual({
      status: "operational",
      detail: "No calls in the last 15 minutes",
    });
    expect(providerStatus({ calls: 100, errors: 2 }).status).toBe("operational");
    expect(providerStatus({ calls: 100, errors: 4 }).status).toBe("operational");
    expect(providerStatus({ calls: 100, errors: 5 })).toEqual({
      status: "degraded",
      detail: "5 of 100 calls failed in the last 15 minutes",
    });
    expect(providerStatus({ calls: 10, errors: 9 }).status).toBe("degraded");
    expect(providerStatus({ calls: 40, errors: 20 }).status).toBe("down");
  });

  it("judges background jobs by heartbeats and queue age", () => {
    const now = new Date("2026-05-01T12:00:00Z");
    expect(jobsStatus(null, null, now).status).toBe("down");
    expect(jobsStatus(new Date(now.getTime() - 4 * MIN), null, now).status).toBe("down");
    expect(jobsStatus(new Date(now.getTime() - MIN), 10, now).status).toBe("operational");
    expect(jobsStatus(new Date(now.getTime() - MIN), 301, now)).toEqual({
      status: "degraded",
      detail: "The oldest waiting job has waited 5 minutes",
    });
  });

  it("formats durations", () => {
    expect(formatDuration(45_000)).toBe("45 seconds");
    expect(formatDuration(MIN)).toBe("1 minute");
    expect(formatDuration(125 * MIN)).toBe("2 hours 5 minutes");
    expect(formatDuration(27 * 60 * MIN)).toBe("1 day 3 hours");
  });
});

describe("provider calls", () => {
  it("counts every call and the provider-side failures a sandbox fault injects", async () => {
    const recorder = createCallRecorder({ db: t.ctx.db, clock: t.clock });
    const google = recorder.fetchFor("google");
    await fetch(`${sandbox.url}/_control/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "drive.about.get", count: 3, error: "drive:backendError" }),
    });
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (await google(`${sandbox.url}/www.googleapis.com/drive/v3/about?fields=user`)).status,
      );
    }
    expect(statuses.slice(0, 3)).toEqual([500, 500, 500]);
    await expect(google("http://127.0.0.1:1/unreachable")).rejects.toThrow();
    await recorder.flush();
    const rows = await t.ctx.db.selectFrom("provider_call_stats").selectAll().execute();
    expect(rows).toEqual([expect.objectContaining({ provider: "google", calls: 6, errors: 4 })]);
    const report = await t.ctx.status.report();
    expect(report.components.find((c) => c.id === "google")).toMatchObject({
      status: "degraded",
      detail: "4 of 6 calls failed in the last 15 minutes",
    });
    expect(report.status).not.toBe("operational");
    await t.rows.status.deleteAllCallStats();
  });
});

describe("streamed uploads", () => {
  it("counts each streamed Drive upload and its provider-side failures, as fetched calls are", async () => {
    const recorder = createCallRecorder({ db: t.ctx.db, clock: t.clock });
    const drive = createDriveClient(
      { apisUrl: `${sandbox.url}/www.googleapis.com` },
      { fetch: recorder.fetchFor("google"), recordStreamed: recorder.streamedFor("google") },
    );
    await fetch(`${sandbox.url}/_control/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: "drive.upload", count: 2, error: "drive:backendError" }),
    });
    const bytes = Buffer.from("a small image");
    const upload = () =>
      drive.multipartStream(
        "not-a-token",
        { name: "a.jpg" },
        {
          stream: (async function* () {
            yield bytes;
          })(),
          length: bytes.length,
        },
        "image/jpeg",
      );
    // Two injected 500s (Drive's failures), then Drive refusing the token (not its failure).
    for (let i = 0; i < 3; i++) await expect(upload()).rejects.toThrow();
    await recorder.flush();
    const rows = await t.ctx.db.selectFrom("provider_call_stats").selectAll().execute();
    expect(rows).toEqual([expect.objectContaining({ provider: "google", calls: 3, errors: 2 })]);
    await t.rows.status.deleteAllCallStats();
  });
});

describe("samples, uptime and incidents", () => {
  let apiUp = true;
  const service = () =>
    createStatusService({
      repo: createStatusRepository(t.ctx.db),
      clock: t.clock,
      calls: { flush: async () => {} },
      queue: { oldestReadyAge: async () => null },
      probeApi: async () => apiUp,
      workerId: "test-worker",
      subscribeMaxPerHour: 5,
    });
  const addCalls = (calls: number, errors: number) =>
    t.rows.status.setCallStats({
      provider: "google",
      minute: new Date(t.clock.now().getTime() - (t.clock.now().getTime() % MIN)),
      calls,
      errors,
    });

  it("answers the live status before any sample: no worker yet, no uptime, no incidents", async () => {
    const res = await t.call("GET", "/api/status");
    expect(res.status).toBe(200);
    expect(
      res.body.components.map((c: { id: string; status: string; uptime: number | null }) => [
        c.id,
        c.status,
        c.uptime,
      ]),
    ).toEqual([
      ["api", "operational", null],
      ["database", "operational", null],
      ["jobs", "down", null],
      ["instagram", "operational", null],
      ["google", "operational", null],
    ]);
    expect(res.body).toMatchObject({
      status: "down",
      incidents: [],
      checked_at: t.clock.now().toISOString(),
    });
  });

  it("opens an incident after more than 5 minutes not operational and resolves it on recovery", async () => {
    const s = service();
    const t0 = t.clock.now();
    await addCalls(10, 4);
    expect((await s.sample()).google.status).toBe("degraded");
    expect((await s.sample()).jobs.status).toBe("operational");
    t.clock.advance(5 * MIN);
    await addCalls(10, 4);
    await s.sample();
    expect((await s.report()).incidents).toEqual([]);

    t.clock.advance(MIN);
    await addCalls(10, 4);
    await s.sample();
    let report = await s.report();
    expect(report.incidents).toEqual([
      expect.objectContaining({
        component: "google",
        title: "Google Drive API degraded",
        description: "12 of 30 calls failed in the last 15 minutes.",
        status: "ongoing",
        date: t0.toISOString(),
        duration: "6 minutes",
      }),
    ]);

    t.clock.advance(MIN);
    await addCalls(40, 30);
    expect((await s.sample()).google.status).toBe("down");
    report = await s.report();
    expect(report.incidents).toHaveLength(1);
    expect(report.incidents[0]).toMatchObject({
      title: "Google Drive API outage",
      status: "ongoing",
    });

    apiUp = false;
    t.clock.advance(16 * MIN); // the failed calls leave the 15-minute window
    const live = await s.sample();
    expect(live.google.status).toBe("operational");
    expect(live.api.status).toBe("down");
    report = await s.report();
    expect(report.incidents[0]).toMatchObject({ status: "resolved", duration: "23 minutes" });
    apiUp = true;

    // 90-day uptime from the samples: google was down in 1 of 5 samples (two in one minute count once), api in 1 of 5.
    const google = report.components.find((c) => c.id === "google")!;
    const api = report.components.find((c) => c.id === "api")!;
    expect(google.uptime).toBe(80);
    expect(api.uptime).toBe(80);
    expect(report.components.find((c) => c.id === "database")!.uptime).toBe(100);
  });

  it("drops samples older than 90 days", async () => {
    t.clock.advance(91 * 86_400_000);
    await service().sample();
    const rows = await t.ctx.db.selectFrom("status_samples").select("sampled_at").execute();
    expect(
      rows.every(
        (r) => t.clock.now().getTime() - new Date(r.sampled_at).getTime() < 90 * 86_400_000,
      ),
    ).toBe(true);
    expect(rows).toHaveLength(5);
  });
});

describe("POST /api/status/subscribe", () => {
  it("validates and stores each address once", async () => {
    const bad = await t.call("POST", "/api/status/subscribe", { body: { email: "nope" } });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ detail: "Invalid email address" });
    for (const email of ["Watcher@Example.com", "watcher@example.com "]) {
      const ok = await t.call("POST", "/api/status/subscribe", { body: { email } });
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({
        message:
          "Almost there: we've sent a confirmation link to watcher@example.com. Open it to start receiving status updates.",
      });
    }
    const rows = await t.ctx.db.selectFrom("status_subscribers").selectAll().execute();
    expect(rows.map((r) => r.email)).toEqual(["watcher@example.com"]);
  });

  it("30 strangers subscribed at once from one address: exactly the hourly limit are added", async () => {
    const ip = "198.51.100.44";
    const limit = t.ctx.config.STATUS_SUBSCRIBE_MAX_PER_HOUR;
    const subscribe = (email: string) =>
      t.call("POST", "/api/status/subscribe", { body: { email }, ip });
    const { answers, statuses } = await burst(30, (i) => subscribe(`stranger${i}@example.com`));
    expect(statuses).toEqual({ 200: limit, 429: 30 - limit });
    const refused = answers.find((a) => a.status === 429);
    expect(refused?.body.detail).toMatch(/^Too many subscriptions from your network/);
    expect(Number(refused?.headers["retry-after"])).toBeGreaterThan(3500);
    const added = await t.ctx.db
      .selectFrom("status_subscribers")
      .select("email")
      .where("ip", "=", ip)
      .execute();
    expect(added).toHaveLength(limit);
    // An address already subscribed answers as before; another client is not affected.
    expect((await subscribe(added[0]!.email)).status).toBe(200);
    const other = await t.call("POST", "/api/status/subscribe", {
      body: { email: "someone.else@example.com" },
      ip: "198.51.100.45",
    });
    expect(other.status).toBe(200);
    t.clock.advance(3_600_001);
    expect((await subscribe("later@example.com")).status).toBe(200);
  });
});
