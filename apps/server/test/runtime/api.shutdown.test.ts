import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_IG } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { type Keepsake, startKeepsake } from "../../src/runtime.ts";
import { backupHelpers } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until } from "../support/wait.ts";

const secrets = {
  JWT_SECRET: randomBytes(32).toString("hex"),
  ENCRYPTION_KEY: randomBytes(32).toString("hex"),
};
const dataDir = mkdtempSync(join(tmpdir(), "keepsake-api-shutdown-"));

let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let token: string;
beforeAll(async () => {
  t = await createSandboxedApp(secrets);
  h = backupHelpers(t);
  const u = await t.signUp();
  await t.connectInstagram(u.token, DEMO_IG.business.id);
  token = u.token;
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** An API process's runtime, as `main.ts api` starts it, on the test's database and sandbox. */
function startApi(graceSeconds: number): Promise<Keepsake> {
  return startKeepsake({
    config: loadConfig({
      ...secrets,
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      HOST: "127.0.0.1",
      PORT: "0",
      DATA_DIR: dataDir,
      SHUTDOWN_GRACE_SECONDS: String(graceSeconds),
    }),
    role: "api",
    databaseUrl: t.database.url,
    sandboxUrl: t.sandbox.url,
    logger: false,
  });
}

/** A request that waits on Instagram (the sandbox delays `ig.me` by `ms`), under way. */
async function slowRequest(api: Keepsake, ms: number) {
  await h.control("/latency", { body: { endpoint: "ig.me", ms } });
  await h.control("/calls", { method: "DELETE" });
  const answer = fetch(
    `${api.url!.replace("localhost", "127.0.0.1")}/api/oauth/refresh-connections`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    },
  );
  await until(
    () => h.calls(),
    (c) => (c["ig.me"] ?? 0) > 0,
  );
  // Wrapped: an async function returning the promise itself would wait for it.
  return { answer };
}

describe("an API process told to stop (SIGTERM)", () => {
  it("stops accepting at once and finishes the requests in flight", async () => {
    const api = await startApi(20);
    const base = api.url!.replace("localhost", "127.0.0.1");
    expect((await fetch(`${base}/api/health/ready`)).status).toBe(200);
    const { answer } = await slowRequest(api, 1500);
    const closing = api.close();
    await expect(fetch(`${base}/api/health/live`)).rejects.toThrow();
    const res = await answer;
    expect(res.status).toBe(200);
    // Then it is done: nothing waits for the grace period to run out.
    const done = Date.now();
    await closing;
    expect(Date.now() - done).toBeLessThan(2000);
  });

  it("closes what is still open once the grace period is over", async () => {
    const api = await startApi(0.3);
    const { answer } = await slowRequest(api, 8000);
    const pending = answer.then(
      (r) => r.status,
      () => "closed" as const,
    );
    const started = Date.now();
    await api.close();
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await pending).toBe("closed");
  });
});
