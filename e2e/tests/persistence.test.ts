import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningKeepsake, startKeepsake } from "../support/keepsake.ts";

let ks: RunningKeepsake;
beforeAll(async () => {
  ks = await startKeepsake();
});
afterAll(async () => {
  await ks?.dispose();
});

async function api(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const res = await fetch(`${ks.url}/api${path}`, {
    method: init.method ?? (init.body ? "POST" : "GET"),
    headers: {
      ...(init.body ? { "content-type": "application/json" } : {}),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : null,
  });
  const body = (await res.json().catch(() => null)) as { access_token?: string } | null;
  return { status: res.status, body };
}

const password = "Persist3nt";
const register = (email: string) =>
  api("/auth/register", { body: { full_name: "Persistent Person", email, password } });
const login = (email: string) => api("/auth/login", { body: { email, password } });

describe("the embedded database under `npm start`", () => {
  it("keeps users and sessions across a restart", async () => {
    expect((await register("keep@example.com")).status).toBe(201);
    const token = (await login("keep@example.com")).body?.access_token;
    await ks.stop("SIGTERM");
    await ks.restart();
    expect((await api("/auth/me", { token })).status).toBe(200);
    expect((await login("keep@example.com")).status).toBe(200);
  });

  it("loses nothing committed when the process is killed mid-request", async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `crash${i}@example.com`);
    let answered = 0;
    const settled = emails.map((email) =>
      register(email)
        .then(
          (r) => ({ email, status: r.status }),
          () => ({ email, status: 0 }),
        )
        .finally(() => answered++),
    );
    // Let a few registrations commit, then crash while the others are in flight.
    await vi.waitFor(() => expect(answered).toBeGreaterThanOrEqual(3), {
      timeout: 30_000,
      interval: 5,
    });
    await ks.stop("SIGKILL");
    const results = await Promise.all(settled);
    const committed = results.filter((r) => r.status === 201).map((r) => r.email);
    await ks.restart();
    for (const email of committed) {
      expect((await login(email)).status, email).toBe(200);
    }
    // Whatever did not answer can be registered again, or already exists: never half-written.
    for (const r of results.filter((x) => x.status !== 201)) {
      const again = await register(r.email);
      expect([201, 409]).toContain(again.status);
      expect((await login(r.email)).status).toBe(200);
    }
  });
});
