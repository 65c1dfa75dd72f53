import { HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { providerCallKind, registry } from "../../src/lib/metrics.ts";
import { dropboxContentHash } from "../../src/providers/dropbox/content-hash.ts";
import { createDropboxClient } from "../../src/providers/dropbox/dropbox.client.ts";
import { createDropboxOAuthClient } from "../../src/providers/dropbox/dropbox-oauth.client.ts";
import { createOneDriveClient } from "../../src/providers/microsoft/onedrive.client.ts";
import { s3CallCounter, sdkCallFailed } from "../../src/providers/s3/s3-call-counter.ts";
import { createCallRecorder } from "../../src/status/call-stats.ts";
import { createStatusRepository } from "../../src/status/status.repository.ts";
import { createStatusService } from "../../src/status/status.service.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import {
  consent,
  control,
  dropboxAccount,
  dropboxSettings,
  microsoftSettings,
  REDIRECT,
  s3Settings,
} from "../support/destinations.ts";

/**
 * Issue 38: the status page judges Dropbox, OneDrive and S3 storage as it judges Google Drive,
 * from the calls Keepsake makes to them, and lists each only once Keepsake has called it.
 */
let t: TestApp;
let sandbox: Sandbox;
beforeAll(async () => {
  [t, sandbox] = await Promise.all([createTestApp(), startSandbox({ port: 0 })]);
});
afterAll(async () => {
  await t.close();
  await sandbox.close();
});
beforeEach(async () => {
  await sandbox.reset();
  await t.rows.status.deleteAllCallStats();
  await t.ctx.db.deleteFrom("status_components").execute();
  await t.ctx.db.deleteFrom("status_samples").execute();
  await t.ctx.db.deleteFrom("status_incidents").execute();
});

const MIN = 60_000;
type Listed = { id: string; name: string; status: string; detail: string; destination?: string };
const components = async (): Promise<Listed[]> => {
  const res = await t.call("GET", "/api/status");
  expect(res.status).toBe(200);
  return res.body.components;
};
const fault = (endpoint: string, error: string, count: number) =>
  control(sandbox, "faults", { endpoint, error, count });

describe("destination components", () => {
  it("lists no destination nobody has called; Google Drive's component names its destination", async () => {
    const listed = await components();
    expect(listed.map((c) => c.id)).toEqual(["api", "database", "jobs", "instagram", "google"]);
    expect(listed.find((c) => c.id === "google")).toMatchObject({
      name: "Google Drive API",
      destination: "google_drive",
    });
    expect(listed.filter((c) => c.destination !== undefined)).toHaveLength(1);
  });

  it("Dropbox: listed once called (OAuth, RPC, a streamed upload), degraded by its 5xx", async () => {
    const recorder = createCallRecorder({ db: t.ctx.db, clock: t.clock });
    const fetchImpl = recorder.fetchFor("dropbox");
    const oauth = createDropboxOAuthClient(dropboxSettings(sandbox), fetchImpl);
    const { url, codeVerifier } = oauth.authUrl({ redirectUri: REDIRECT, state: "s" });
    const back = await consent(url, { decision: "allow", account: dropboxAccount });
    const { accessToken } = await oauth.exchangeCode({
      code: back.get("code")!,
      redirectUri: REDIRECT,
      codeVerifier,
    });
    const dropbox = createDropboxClient(dropboxSettings(sandbox), {
      fetch: fetchImpl,
      recordStreamed: recorder.streamedFor("dropbox"),
    });
    const one = Buffer.from("a sidecar");
    await dropbox.upload(
      accessToken,
      { path: "/Keepsake/a.json", mode: "overwrite" },
      [one],
      dropboxContentHash(one),
    );
    expect(await dropbox.getMetadata(accessToken, "/Keepsake/a.json")).not.toBeNull();
    await recorder.flush();
    expect((await components()).find((c) => c.id === "dropbox")).toEqual({
      id: "dropbox",
      name: "Dropbox API",
      status: "operational",
      detail: "0 of 3 calls failed in the last 15 minutes",
      uptime: null,
      destination: "dropbox",
    });

    // Dropbox's own failures (500s) count; its refusal of a missing file does not.
    await fault("dropbox.files/get_metadata", "dropbox:internal_error", 3);
    for (let i = 0; i < 3; i++) {
      await expect(dropbox.getMetadata(accessToken, "/Keepsake/a.json")).rejects.toThrow();
    }
    expect(await dropbox.getMetadata(accessToken, "/Keepsake/none.json")).toBeNull();
    await recorder.flush();
    const listed = await components();
    expect(listed.map((c) => c.id)).toEqual([
      "api",
      "database",
      "jobs",
      "instagram",
      "google",
      "dropbox",
    ]);
    expect(listed.find((c) => c.id === "dropbox")).toMatchObject({
      status: "degraded",
      detail: "3 of 7 calls failed in the last 15 minutes",
    });
    expect((await t.call("GET", "/api/status")).body.status).not.toBe("operational");
  });

  it("OneDrive: Graph's calls count under Microsoft; throttling and 5xx degrade it, a refused token does not", async () => {
    const recorder = createCallRecorder({ db: t.ctx.db, clock: t.clock });
    const onedrive = createOneDriveClient(microsoftSettings(sandbox), {
      fetch: recorder.fetchFor("microsoft"),
      recordStreamed: recorder.streamedFor("microsoft"),
    });
    await fault("onedrive.items", "onedrive:serviceNotAvailable", 2);
    await fault("onedrive.items", "onedrive:activityLimitReached", 1);
    // Three failures of Graph's, then two refusals of the token (not Graph's failure).
    for (let i = 0; i < 5; i++) await expect(onedrive.appFolder("not-a-token")).rejects.toThrow();
    await recorder.flush();
    expect((await components()).find((c) => c.id === "microsoft")).toMatchObject({
      name: "Microsoft Graph (OneDrive)",
      status: "degraded",
      detail: "3 of 5 calls failed in the last 15 minutes",
      destination: "onedrive",
    });
  });

  it("S3: the SDK's calls counted through its middleware (status and metrics), SlowDown and 5xx degrade it", async () => {
    const recorder = createCallRecorder({ db: t.ctx.db, clock: t.clock });
    const settings = s3Settings(sandbox);
    // As providers/s3/s3.client.ts builds its client, with the status area's counter hooked in.
    const sdk = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: true,
      credentials: {
        accessKeyId: settings.accessKeyId,
        secretAccessKey: settings.secretAccessKey,
      },
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      maxAttempts: 1,
    });
    const counter = s3CallCounter(recorder.recordFor("s3"));
    sdk.middlewareStack.add(counter.middleware, counter.options);
    const Bucket = settings.bucket;
    const before = await s3Metric();

    await sdk.send(new PutObjectCommand({ Bucket, Key: "k/a.json", Body: "{}" }));
    await sdk.send(new HeadObjectCommand({ Bucket, Key: "k/a.json" }));
    await recorder.flush();
    expect((await components()).find((c) => c.id === "s3")).toMatchObject({
      name: "S3 storage",
      status: "operational",
      detail: "0 of 2 calls failed in the last 15 minutes",
      destination: "s3",
    });

    await fault("s3.head", "s3:SlowDown", 1);
    await fault("s3.head", "s3:InternalError", 2);
    const thrown: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      await sdk.send(new HeadObjectCommand({ Bucket, Key: "k/a.json" })).catch((e) => {
        thrown.push(e);
      });
    }
    expect(thrown.map(sdkCallFailed)).toEqual([true, true, true]);
    // A missing object is a 404: the store answered, no failure of its.
    const missing = await sdk
      .send(new HeadObjectCommand({ Bucket, Key: "k/none.json" }))
      .catch((e: unknown) => e);
    expect(sdkCallFailed(missing)).toBe(false);
    await recorder.flush();
    expect((await components()).find((c) => c.id === "s3")).toMatchObject({
      status: "degraded",
      detail: "3 of 6 calls failed in the last 15 minutes",
    });
    const after = await s3Metric();
    expect(after.calls["s3.HeadObject"]! - (before.calls["s3.HeadObject"] ?? 0)).toBe(5);
    expect(after.calls["s3.PutObject"]! - (before.calls["s3.PutObject"] ?? 0)).toBe(1);
    expect(after.errors["s3.HeadObject"]! - (before.errors["s3.HeadObject"] ?? 0)).toBe(3);
  });

  it("names the destinations' calls in the metrics", () => {
    expect(providerCallKind("https://api.dropboxapi.com/2/files/get_metadata", "POST")).toBe(
      "dropbox.api",
    );
    expect(providerCallKind("https://content.dropboxapi.com/2/files/upload", "POST")).toBe(
      "dropbox.content",
    );
    expect(providerCallKind("https://api.dropboxapi.com/oauth2/token", "POST")).toBe("oauth");
    expect(
      providerCallKind("https://graph.microsoft.com/v1.0/me/drive/special/approot", "GET"),
    ).toBe("onedrive.api");
    expect(providerCallKind("https://x-my.sharepoint.com/personal/upload.aspx?a=1", "PUT")).toBe(
      "onedrive.upload",
    );
    expect(providerCallKind(`${sandbox.url}/graph.microsoft.com/upload/abc`, "PUT")).toBe(
      "onedrive.upload",
    );
    expect(
      providerCallKind("https://login.microsoftonline.com/common/oauth2/v2.0/token", "POST"),
    ).toBe("oauth");
  });
});

/** keepsake_provider_{calls,errors}_total for provider s3, by kind. */
async function s3Metric() {
  const read = async (name: string) => {
    const metric = registry.getSingleMetric(name);
    const values = (await metric!.get()).values;
    return Object.fromEntries(
      values.filter((v) => v.labels.provider === "s3").map((v) => [String(v.labels.kind), v.value]),
    ) as Record<string, number>;
  };
  return {
    calls: await read("keepsake_provider_calls_total"),
    errors: await read("keepsake_provider_errors_total"),
  };
}

describe("destination samples and incidents", () => {
  const service = () =>
    createStatusService({
      repo: createStatusRepository(t.ctx.db),
      clock: t.clock,
      calls: { flush: async () => {} },
      queue: { oldestReadyAge: async () => null },
      probeApi: async () => true,
      workerId: "test-worker",
      subscribeMaxPerHour: 5,
    });
  const addCalls = (provider: "dropbox" | "s3", calls: number, errors: number) =>
    t.rows.status.setCallStats({
      provider,
      minute: new Date(t.clock.now().getTime() - (t.clock.now().getTime() % MIN)),
      calls,
      errors,
    });
  const sampled = async () =>
    (await t.ctx.db.selectFrom("status_samples").select("component").distinct().execute())
      .map((r) => r.component)
      .sort();

  it("samples only listed destinations; an outage opens an incident as Google's does, resolves, and the component leaves a day after its last call", async () => {
    const s = service();
    await s.sample();
    expect(await sampled()).toEqual(["api", "database", "google", "instagram", "jobs"]);

    await addCalls("dropbox", 40, 30);
    const t0 = t.clock.now();
    expect((await s.sample()).dropbox?.status).toBe("down");
    expect((await s.sample()).s3).toBeUndefined();
    t.clock.advance(6 * MIN);
    await addCalls("dropbox", 10, 10);
    await s.sample();
    let report = await s.report();
    expect(report.incidents).toEqual([
      expect.objectContaining({
        component: "dropbox",
        title: "Dropbox API outage",
        description: "40 of 50 calls failed in the last 15 minutes.",
        status: "ongoing",
        date: t0.toISOString(),
      }),
    ]);
    expect(await sampled()).toContain("dropbox");
    expect(await sampled()).not.toContain("s3");

    // The failed calls leave the 15-minute window: resolved, still listed (called today).
    t.clock.advance(16 * MIN);
    expect((await s.sample()).dropbox).toEqual({
      status: "operational",
      detail: "No calls in the last 15 minutes",
    });
    report = await s.report();
    expect(report.incidents[0]).toMatchObject({ status: "resolved", duration: "22 minutes" });
    const dropbox = report.components.find((c) => c.id === "dropbox")!;
    expect(dropbox.uptime).toBe(33.33);

    // A day without calls: no longer listed (its incident stays in the history).
    t.clock.advance(86_400_000);
    await s.sample();
    report = await s.report();
    expect(report.components.map((c) => c.id)).not.toContain("dropbox");
    expect(report.incidents).toEqual([expect.objectContaining({ component: "dropbox" })]);
  });

  it("a destination whose last sample was not operational stays listed until judged again", async () => {
    const s = service();
    await addCalls("s3", 10, 5);
    expect((await s.sample()).s3?.status).toBe("degraded");
    // Past the call counts' day, but the last sample said degraded: judged once more, then gone.
    t.clock.advance(86_400_000 + MIN);
    expect((await s.report()).components.find((c) => c.id === "s3")).toMatchObject({
      status: "operational",
    });
    expect((await s.sample()).s3?.status).toBe("operational");
    expect((await s.report()).components.map((c) => c.id)).not.toContain("s3");
  });
});
