import { SANDBOX_CREDENTIALS } from "@keepsake/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../src/lib/errors.ts";
import { connectFirstWords } from "../../src/providers/failure-words.ts";
import { connectionsSuite } from "../support/connections.ts";
import { control } from "../support/destinations.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";

/** S3-compatible storage: "Test connection", saving its keys sealed, disconnecting. */
const suite = connectionsSuite();
let t: SandboxedApp;
beforeAll(() => {
  t = suite.app();
});

const S3 = SANDBOX_CREDENTIALS.s3;
const form = (overrides: Record<string, string> = {}) => ({
  endpoint: t.sandbox.urls.s3,
  region: S3.region,
  bucket: S3.bucket,
  prefix: "",
  access_key_id: S3.accessKeyId,
  secret_access_key: S3.secretAccessKey,
  ...overrides,
});
const host = () => new URL(t.sandbox.urls.s3).host;

async function objects() {
  const listed = await control<{ objects: { bucket: string; key: string }[] }>(
    t.sandbox,
    "s3/objects",
  );
  return listed.objects.map((o) => `${o.bucket}/${o.key}`);
}

async function calls() {
  return (await control<{ calls: Record<string, number> }>(t.sandbox, "calls")).calls;
}

async function s3Entry(token: string) {
  const res = await t.call("GET", "/api/destinations", { token });
  return (res.body.destinations as { kind: string; status_reason: string | null }[]).find(
    (d) => d.kind === "s3",
  );
}

describe("testing S3 storage", () => {
  it("writes, reads back and deletes a probe object", async () => {
    const { token } = await t.signUp();
    const before = await objects();
    const counted = await calls();
    const res = await t.call("POST", "/api/destinations/s3/test", {
      token,
      body: form({ prefix: "backups/keepsake" }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      message: `Keepsake wrote, read back and deleted a test object in ${S3.bucket} at ${host()}.`,
    });
    expect(await objects()).toEqual(before);
    const after = await calls();
    for (const op of ["s3.put", "s3.get", "s3.delete"])
      expect(after[op] ?? 0).toBe((counted[op] ?? 0) + 1);
  });

  it("keys that may not write, or may write but not read, are told apart", async () => {
    const { token } = await t.signUp();
    await control(t.sandbox, "faults", { endpoint: "s3.put", error: "s3:AccessDenied" });
    const write = await t.call("POST", "/api/destinations/s3/test", { token, body: form() });
    expect(write.status).toBe(400);
    expect(write.body.detail).toMatch(/refused to let these keys write to keepsake-demo/);

    const before = await objects();
    await control(t.sandbox, "faults", { endpoint: "s3.get", error: "s3:AccessDenied" });
    const read = await t.call("POST", "/api/destinations/s3/test", { token, body: form() });
    expect(read.status).toBe(400);
    expect(read.body.detail).toMatch(/refused reading the test object back/);
    // The probe written before the refusal was deleted.
    expect(await objects()).toEqual(before);
  });

  it.each([
    [
      "a wrong secret",
      { secret_access_key: "not/the/right/secret/at/all/000000000000" },
      /secret access key does not match/,
    ],
    [
      "an unknown access key",
      { access_key_id: "AKIAUNKNOWNKEY000000" },
      /does not know this access key ID/,
    ],
    ["an unknown bucket", { bucket: "no-such-bucket" }, /There is no bucket named no-such-bucket/],
    [
      "an unreachable endpoint",
      { endpoint: "http://127.0.0.1:1" },
      /Could not reach 127\.0\.0\.1:1/,
    ],
    [
      "credentials in the endpoint",
      { endpoint: "http://user:pw@127.0.0.1:1" },
      /must not contain credentials/,
    ],
  ])("%s answers 400 naming what failed, without the secret", async (_, overrides, detail) => {
    const { token } = await t.signUp();
    const body = form(overrides);
    for (const path of ["/api/destinations/s3/test", "/api/destinations/s3"]) {
      const res = await t.call("POST", path, { token, body });
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(detail);
      expect(JSON.stringify(res.body)).not.toContain(body.secret_access_key);
    }
    expect(await s3Entry(token)).toMatchObject({ connected: false });
  });

  it("a missing field answers 4xx with what to enter", async () => {
    const { token } = await t.signUp();
    const res = await t.call("POST", "/api/destinations/s3/test", {
      token,
      body: { ...form(), bucket: "" },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(JSON.stringify(res.body)).not.toContain(S3.secretAccessKey);
  });
});

describe("S3 endpoints on Keepsake's own network (S3_PRIVATE_ENDPOINTS=false, live mode's default)", () => {
  let live: SandboxedApp;
  beforeAll(async () => {
    live = await createSandboxedApp({ S3_PRIVATE_ENDPOINTS: "false" });
  });
  afterAll(async () => {
    await live?.close();
  });

  it("are refused with the address named, before any request, when tested or saved", async () => {
    const { token } = await live.signUp();
    const before = JSON.stringify(await control(live.sandbox, "calls"));
    const local = new URL(live.sandbox.urls.s3);
    for (const [endpoint, address] of [
      [live.sandbox.urls.s3, "127.0.0.1"],
      [`http://localhost:${local.port}/s3`, "localhost"],
      ["http://169.254.169.254", "169.254.169.254"],
      ["http://[fd00::1]:9000", "fd00::1"],
    ] as const) {
      for (const path of ["/api/destinations/s3/test", "/api/destinations/s3"]) {
        const res = await live.call("POST", path, { token, body: form({ endpoint }) });
        expect(res.status, `${path} ${endpoint}`).toBe(400);
        expect(res.body.detail).toContain(address);
        expect(res.body.detail).toContain("Keepsake's own network");
        expect(JSON.stringify(res.body)).not.toContain(S3.secretAccessKey);
      }
    }
    expect(JSON.stringify(await control(live.sandbox, "calls"))).toBe(before);
    const listed = await live.call("GET", "/api/destinations", { token });
    expect(
      (listed.body.destinations as { kind: string; connected: boolean }[]).find(
        (d) => d.kind === "s3",
      ),
    ).toMatchObject({ connected: false });
  });
});

describe("saving S3 storage", () => {
  it("tests, then stores the settings sealed; the custody opens them; disconnecting forgets", async () => {
    const { token, user } = await t.signUp();
    const res = await t.call("POST", "/api/destinations/s3", {
      token,
      body: form({ prefix: "/backups/" }),
    });
    // A leading slash is refused: the prefix is below the bucket.
    expect(res.status).toBe(400);

    const saved = await t.call("POST", "/api/destinations/s3", {
      token,
      body: form({ prefix: "backups" }),
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      kind: "s3",
      label: "S3 storage",
      connected: true,
      account: `${S3.bucket} at ${host()}`,
      needs_reconnect: false,
      status_reason: null,
      accounts_using: 0,
    });
    expect(await s3Entry(token)).toMatchObject({
      connected: true,
      account: `${S3.bucket} at ${host()}`,
    });

    // Nothing of the keys in the row unsealed, nor in any answer.
    const raw = await t.ctx.pool.query(
      "SELECT row_to_json(d)::text AS json FROM destination_connections d WHERE user_id = $1",
      [user.id],
    );
    const json = raw.rows[0].json as string;
    expect(json).not.toContain(S3.secretAccessKey);
    expect(json).not.toContain(S3.accessKeyId);
    const list = await t.call("GET", "/api/destinations", { token });
    expect(JSON.stringify([saved.body, list.body])).not.toContain(S3.secretAccessKey);

    const custody = t.ctx.connections.destinations.custody;
    expect(await custody.s3Settings(user.id)).toEqual({
      endpoint: t.sandbox.urls.s3,
      region: S3.region,
      bucket: S3.bucket,
      prefix: "backups/",
      accessKeyId: S3.accessKeyId,
      secretAccessKey: S3.secretAccessKey,
      forcePathStyle: true,
    });

    const gone = await t.call("DELETE", "/api/destinations/s3", { token });
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({ disconnected: 1, revoked: false });
    expect(await s3Entry(token)).toMatchObject({ connected: false, account: null });
    const err = await custody.s3Settings(user.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toBe(connectFirstWords.s3);
  });

  it("keys a backup found refused mark the connection only while they are still the keys held", async () => {
    const { token, user } = await t.signUp();
    expect((await t.call("POST", "/api/destinations/s3", { token, body: form() })).status).toBe(
      200,
    );
    const custody = t.ctx.connections.destinations.custody;
    const held = await custody.s3Settings(user.id);
    // Refused keys the user has replaced since: nothing to mark.
    await custody.refused(user.id, "s3", "refused", { ...held, secretAccessKey: "older" });
    expect(await s3Entry(token)).toMatchObject({ needs_reconnect: false });
    await custody.refused(user.id, "s3", "refused", held);
    expect(await s3Entry(token)).toMatchObject({ needs_reconnect: true, status_reason: "refused" });
  });

  it("keys refused by several backups at once mark the connection once: one report, one alert", async () => {
    const { token, user } = await t.signUp();
    expect((await t.call("POST", "/api/destinations/s3", { token, body: form() })).status).toBe(
      200,
    );
    const reports: string[] = [];
    t.ctx.connections.events.destinationNeedsReconnection.on(async (l) => {
      if (l.userId === user.id) reports.push(l.kind);
    });
    const custody = t.ctx.connections.destinations.custody;
    const held = await custody.s3Settings(user.id);
    // Three backup slots and more, each finding the same keys refused at the same moment.
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => custody.refused(user.id, "s3", `refused ${i}`, held)),
    );
    expect(reports).toEqual(["s3"]);
    const entry = await s3Entry(token);
    expect(entry).toMatchObject({ needs_reconnect: true });
    expect(entry?.status_reason).toMatch(/^refused \d$/);
    const bell = await t.call("GET", "/api/notifications", { token });
    const titles = (bell.body.notifications as { title: string }[]).map((n) => n.title);
    expect(titles.filter((x) => /S3 storage's keys/.test(x))).toHaveLength(1);
    // Marked already: another refusal changes nothing and reports nothing.
    await custody.refused(user.id, "s3", "refused again", held);
    await custody.markNeedsReconnection(user.id, "s3", "refused again");
    expect(reports).toEqual(["s3"]);
    expect((await s3Entry(token))?.status_reason).toBe(entry?.status_reason);
  });

  it("keys the storage stops accepting: marked, with the reason, until saved again", async () => {
    const { token, user } = await t.signUp();
    expect((await t.call("POST", "/api/destinations/s3", { token, body: form() })).status).toBe(
      200,
    );
    const custody = t.ctx.connections.destinations.custody;
    await custody.markNeedsReconnection(user.id, "s3");
    expect(await s3Entry(token)).toMatchObject({ connected: true, needs_reconnect: true });
    await expect(custody.s3Settings(user.id)).rejects.toThrow(/Enter new keys/);
    expect((await t.call("POST", "/api/destinations/s3", { token, body: form() })).status).toBe(
      200,
    );
    expect(await s3Entry(token)).toMatchObject({ needs_reconnect: false });
    expect((await custody.s3Settings(user.id)).bucket).toBe(S3.bucket);
  });
});
