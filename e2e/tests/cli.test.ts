import { spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningKeepsake, startKeepsake } from "../support/keepsake.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const REPORT_PACKAGES = resolve(import.meta.dirname, "../support/report-packages.ts");
let ks: RunningKeepsake;
beforeAll(async () => {
  ks = await startKeepsake();
});
afterAll(async () => {
  await ks?.dispose();
});

function env() {
  return {
    ...process.env,
    DATA_DIR: ks.dataDir,
    LOG_LEVEL: "warn",
    SANDBOX_PORT: new URL(ks.sandboxUrl).port,
  };
}

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ["apps/server/src/cli.ts", ...args], {
    cwd: ROOT,
    env: env(),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

async function profile(email: string): Promise<{ is_admin: boolean }> {
  const login = await fetch(`${ks.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "AdminPass1" }),
  });
  const { access_token } = (await login.json()) as { access_token: string };
  const me = await fetch(`${ks.url}/api/auth/me`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
  return (await me.json()) as { is_admin: boolean };
}

describe("processes beside a running `npm start` on the embedded database", () => {
  it("`npm run cli -- make-admin` promotes a user through the running database", async () => {
    const email = "boss@example.com";
    const reg = await fetch(`${ks.url}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ full_name: "The Boss", email, password: "AdminPass1" }),
    });
    expect(reg.status).toBe(201);
    expect((await profile(email)).is_admin).toBe(false);

    const ok = cli("make-admin", "BOSS@example.com");
    expect(ok.out).toContain("boss@example.com is now an administrator.");
    expect(ok.status).toBe(0);
    expect((await profile(email)).is_admin).toBe(true);

    const missing = cli("make-admin", "nobody@example.com");
    expect(missing.status).toBe(1);
    expect(missing.out).toContain("No user with e-mail nobody@example.com");

    const usage = cli("promote");
    expect(usage.status).toBe(2);
    expect(usage.out).toContain("Usage: npm run cli -- make-admin <email>");
  });

  it("a worker-only process starts against the same database, without what only an API loads, and stops cleanly", async () => {
    const worker = spawn(
      process.execPath,
      ["--import", REPORT_PACKAGES, "apps/server/src/main.ts", "worker"],
      {
        cwd: ROOT,
        env: env(),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    worker.stdout.on("data", (d) => {
      out += d;
    });
    worker.stderr.on("data", (d) => {
      out += d;
    });
    await expect
      .poll(() => out, { timeout: 30_000, interval: 200 })
      .toContain("Keepsake (worker) is running");
    // A worker's memory (docs/benchmarks.md): the HTTP server, password hashing, tokens,
    // payments, mail and the other destinations' clients load where they are used, not here.
    worker.kill("SIGUSR2");
    await expect.poll(() => out, { timeout: 10_000, interval: 100 }).toMatch(/^packages /m);
    const loaded: string[] = JSON.parse(/^packages (.*)$/m.exec(out)?.[1] ?? "[]");
    expect(loaded).toEqual(expect.arrayContaining(["pg", "pg-boss", "kysely"]));
    const apiOnly = ["fastify", "@node-rs/argon2", "jose", "stripe", "nodemailer"];
    const onUse = ["@react-email/render", "@aws-sdk/client-s3", "dropbox"];
    expect(loaded.filter((p) => [...apiOnly, ...onUse].includes(p))).toEqual([]);
    const exited = new Promise<number | null>((r) => worker.once("exit", (code) => r(code)));
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);
    // The app that owns the database is unaffected.
    expect((await fetch(`${ks.url}/api/ready`)).status).toBe(200);
  });
});
