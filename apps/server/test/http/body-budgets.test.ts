import { IncomingMessage, request, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { IMPORT_PLAN_MAX_BYTES } from "@keepsake/contracts/import";
import {
  compactExportJson,
  exportJsonPaths,
  exportPlanPaths,
} from "@keepsake/contracts/instagram-export";
import { DEMO_IG } from "@keepsake/sandbox";
import { TextWriter, Uint8ArrayReader, ZipReader } from "@zip.js/zip.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planBusy, planSlots, plansBusy } from "../../src/import/plan-slots.ts";
import { AppError } from "../../src/lib/errors.ts";
import { backupHelpers } from "../support/backup.ts";
import { createSandboxedApp, type SandboxedApp } from "../support/sandbox.ts";
import { until } from "../support/wait.ts";

/**
 * Issue 35, item 3: request budgets. Each route reads at most its own limit (413 beyond, before
 * the body is read when its length is announced); the import plan checks its caller and account
 * before it reads a byte, and reads one plan at a time per user.
 */
let t: SandboxedApp;
let h: ReturnType<typeof backupHelpers>;
let base: URL;
type User = Awaited<ReturnType<ReturnType<typeof backupHelpers>["connectedUser"]>>;
/** Owners of the business and the creator demo accounts (one Keepsake user per account). */
let owner: User;
let creator: User;

interface Answer {
  status: number;
  body: { detail?: string } & Record<string, unknown>;
  /** Bytes of the body the client had written when the answer's headers arrived. */
  sentWhenAnswered: number;
}

/**
 * A request whose body is written in pieces: `first` bytes at once, the rest only when
 * `more()` is called (or never). Answers the server's response as soon as it comes.
 */
function slowRequest(
  path: string,
  opts: { token?: string; length: number; first: Buffer; contentType?: string },
) {
  let sent = 0;
  let resolveMore: ((rest?: Buffer) => void) | null = null;
  const answer = new Promise<Answer>((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        path,
        method: "POST",
        headers: {
          "content-type": opts.contentType ?? "application/json",
          "content-length": String(opts.length),
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        },
      },
      (res) => {
        const sentWhenAnswered = sent;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), sentWhenAnswered });
          req.destroy();
        });
      },
    );
    req.on("error", reject);
    req.write(opts.first);
    sent += opts.first.length;
    resolveMore = (rest = Buffer.alloc(opts.length - sent, 0x20)) => {
      req.end(rest);
      sent += rest.length;
    };
  });
  /** Sends the rest of the body (`rest`, or spaces up to the announced length). */
  return { answer, more: (rest?: Buffer) => resolveMore?.(rest) };
}

/** Import plans the server has taken in and not answered yet, as its /metrics reports them. */
async function plansOpen(): Promise<number> {
  const res = await t.app.inject({ method: "GET", url: "/metrics" });
  expect(res.statusCode).toBe(200);
  const line = /^keepsake_import_plans_open (\S+)$/m.exec(res.body);
  expect(line, "keepsake_import_plans_open in /metrics").not.toBeNull();
  return Number(line?.[1]);
}

/** Waits until the server holds `n` import plans' slots. */
const plansOpenAre = (n: number) => until(plansOpen, (open) => open === n, 10_000);

async function openExport(account: string) {
  const res = await fetch(`${t.sandbox.url}/_control/instagram/${account}/export.zip`);
  const zip = new ZipReader(new Uint8ArrayReader(new Uint8Array(await res.arrayBuffer())));
  const entries = await zip.getEntries();
  const byPath = new Map(entries.map((e) => [e.filename, e]));
  const paths = exportPlanPaths(entries.map((e) => e.filename));
  const original: { path: string; text: string }[] = [];
  for (const path of exportJsonPaths(paths)) {
    const entry = byPath.get(path);
    if (entry && !entry.directory) {
      original.push({ path, text: await entry.getData(new TextWriter()) });
    }
  }
  const compact = original.map((f) => ({ path: f.path, text: compactExportJson(f.text) }));
  return { paths, original, compact };
}

beforeAll(async () => {
  t = await createSandboxedApp({});
  h = backupHelpers(t);
  owner = await h.connectedUser({ instagram: DEMO_IG.business.id, tier: "pro" });
  creator = await h.connectedUser({ instagram: DEMO_IG.creator.id, tier: "pro" });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  base = new URL(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe("body limits per route", () => {
  it("answers 413 with the route's limit over the global 16 KiB default (sign-up)", async () => {
    const res = await t.call("POST", "/api/auth/register", {
      body: { full_name: "x".repeat(17 * 1024), email: "a@b.co", password: "Abcdefg1" },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: "Request body is too large: at most 16 KiB here" });
  });

  it("lets a contact message of 5,000 escaped characters through (64 KiB), and refuses more", async () => {
    // Each character written as \u00e9: 30 KB of JSON, over the 16 KiB default.
    const message = "\\u00e9".repeat(5000);
    const raw = `{"name":"Ann","email":"ann@example.com","subject":"Hello","message":"${message}"}`;
    expect(raw.length).toBeGreaterThan(16 * 1024);
    const ok = await t.call("POST", "/api/contact", {
      body: raw,
      headers: { "content-type": "application/json" },
      ip: "203.0.113.50",
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const big = await t.call("POST", "/api/contact", {
      body: { name: "Ann", email: "ann@example.com", subject: "Hi", message: "y".repeat(70_000) },
      ip: "203.0.113.51",
    });
    expect(big.status).toBe(413);
    expect(big.body.detail).toBe("Request body is too large: at most 64 KiB here");
  });

  it("refuses a Stripe webhook over 1 MiB", async () => {
    const res = await t.call("POST", "/api/webhooks/stripe", {
      body: Buffer.alloc(1024 * 1024 + 1, 0x20).toString(),
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" },
    });
    expect(res.status).toBe(413);
    expect(res.body.detail).toBe("Request body is too large: at most 1 MiB here");
  });

  it("answers an announced oversized plan with 413 before its body is sent", async () => {
    const r = slowRequest(`/api/import/accounts/${owner.accountId}/plan`, {
      token: owner.token,
      length: IMPORT_PLAN_MAX_BYTES + 1,
      first: Buffer.from('{"paths":['),
    });
    const res = await r.answer;
    expect(res.status).toBe(413);
    expect(res.body.detail).toBe(
      `Request body is too large: at most ${IMPORT_PLAN_MAX_BYTES / (1024 * 1024)} MiB here`,
    );
    expect(res.sentWhenAnswered).toBe(10);
  });

  it("stops reading a chunked body at the limit", async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: base.hostname,
          port: base.port,
          path: "/api/auth/login",
          method: "POST",
          headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on("data", (c: Buffer) => chunks.push(c));
          r.on("end", () => {
            resolve({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString() });
            req.destroy();
          });
        },
      );
      req.on("error", reject);
      // 64 KiB in 1 KiB chunks, never ended: the answer cannot wait for the end.
      for (let i = 0; i < 64; i++) req.write(Buffer.alloc(1024, 0x20));
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).detail).toBe("Request body is too large: at most 16 KiB here");
  });
});

describe("the import plan", () => {
  it("refuses a caller who does not own the account before reading the body", async () => {
    const stranger = await t.signUp();
    const r = slowRequest(`/api/import/accounts/${owner.accountId}/plan`, {
      token: stranger.token,
      length: IMPORT_PLAN_MAX_BYTES,
      first: Buffer.from('{"paths":[], "files":['),
    });
    const res = await r.answer;
    expect(res.status).toBe(404);
    expect(res.body.detail).toBe("Instagram account not found");
    // Answered while the client had sent 22 bytes of the announced 2 MiB.
    expect(res.sentWhenAnswered).toBeLessThan(100);
    // Nor is a body read without a session.
    const anonymous = await slowRequest(`/api/import/accounts/${owner.accountId}/plan`, {
      length: IMPORT_PLAN_MAX_BYTES,
      first: Buffer.from("{"),
    }).answer;
    expect(anonymous.status).toBe(401);
    expect(anonymous.sentWhenAnswered).toBe(1);
  });

  it("reads one plan at a time per user: a second one while the first is sent answers 409", async () => {
    const ex = await openExport(DEMO_IG.business.username);
    const body = Buffer.from(JSON.stringify({ paths: ex.paths, files: ex.compact }));
    const path = `/api/import/accounts/${owner.accountId}/plan`;
    await plansOpenAre(0);
    // The first plan: its body held back after the first bytes.
    const first = slowRequest(path, {
      token: owner.token,
      length: body.length,
      first: body.subarray(0, 100),
    });
    // The first request has reached the server and taken its slot.
    await plansOpenAre(1);
    const second = await t.call("POST", path, {
      token: owner.token,
      body: { paths: ex.paths, files: ex.compact },
    });
    expect(second.status).toBe(409);
    expect(second.body.detail).toBe(planBusy);
    // Another user's plan is not held up by it.
    const theirs = await openExport(DEMO_IG.creator.username);
    const other = await t.call("POST", `/api/import/accounts/${creator.accountId}/plan`, {
      token: creator.token,
      body: { paths: theirs.paths, files: theirs.compact },
    });
    expect(other.status).toBe(200);
    // The first one finishes; then the slot is free again.
    first.more(body.subarray(100));
    const answered = await first.answer;
    expect(answered.status).toBe(200);
    expect(answered.sentWhenAnswered).toBe(body.length);
    const third = await t.call("POST", path, {
      token: owner.token,
      body: { paths: ex.paths, files: ex.compact },
    });
    expect(third.status).toBe(200);
  });

  it("gives the slot back when a plan's client goes away mid-body", async () => {
    const path = `/api/import/accounts/${owner.accountId}/plan`;
    const req = request({
      host: base.hostname,
      port: base.port,
      path,
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": "100000",
        authorization: `Bearer ${owner.token}`,
      },
    });
    req.on("error", () => {});
    await plansOpenAre(0);
    req.write("{");
    // The request has reached the server and taken its slot.
    await plansOpenAre(1);
    const busy = await t.call("POST", path, { token: owner.token, body: { paths: [], files: [] } });
    expect(busy.status).toBe(409);
    req.destroy();
    // The server notices the client gone and gives the slot back.
    await plansOpenAre(0);
    const res = await t.call("POST", path, { token: owner.token, body: { paths: [], files: [] } });
    // Read (and refused: an empty plan is no export), no longer busy.
    expect(res.status).toBe(422);
  });

  it("parses one plan at a time in the process: a body that arrives meanwhile answers 503", () => {
    const slots = planSlots();
    const response = () => new ServerResponse(new IncomingMessage(null as never));
    const first = response();
    slots.take("u1", first);
    const second = response();
    slots.take("u2", second);
    // u2's body has arrived first: it is parsed; u1's, arriving while u2's is read, is refused.
    slots.parse("u2");
    let refused: unknown;
    try {
      slots.parse("u1");
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).kind).toBe("unavailable");
    expect((refused as AppError).message).toBe(plansBusy);
    expect((refused as AppError).options.retryAfterSeconds).toBe(5);
    // The same user again while theirs is sent: 409.
    expect(() => slots.take("u1", response())).toThrow(planBusy);
    first.emit("close");
    const again = response();
    slots.take("u1", again);
    // Closed, they leave the process's count of open plans as they found it.
    again.emit("close");
    second.emit("close");
  });

  it("answers a malformed plan with 400", async () => {
    const res = await t.call("POST", `/api/import/accounts/${owner.accountId}/plan`, {
      token: owner.token,
      body: '{"paths": [',
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "Malformed JSON body" });
  });

  it("matches an export against the account's posts by any number of media ids (one array parameter)", async () => {
    // Over a statement's 65,535 parameters: each id its own parameter failed with a bind error.
    const ids = Array.from({ length: 70_000 }, (_, i) =>
      String(17_900_000_000_000_000n + BigInt(i)),
    );
    const known = await t.ctx.syncRepos.posts.postsForImportMatch(
      owner.accountId,
      ids,
      new Date(0),
      new Date(1),
    );
    expect(known).toEqual([]);
  });

  it("reads the compact export the browser sends as it reads the export itself", async () => {
    const ex = await openExport(DEMO_IG.business.username);
    const size = (files: { text: string }[]) => files.reduce((n, f) => n + f.text.length, 0);
    expect(size(ex.compact)).toBeLessThan(size(ex.original) / 2);
    const full = await t.call("POST", `/api/import/accounts/${owner.accountId}/plan`, {
      token: owner.token,
      body: { paths: ex.paths, files: ex.original },
    });
    const compact = await t.call("POST", `/api/import/accounts/${owner.accountId}/plan`, {
      token: owner.token,
      body: { paths: ex.paths, files: ex.compact },
    });
    expect(full.status).toBe(200);
    expect(compact.status).toBe(200);
    expect(compact.body.items).toEqual(full.body.items);
    expect(compact.body.summary).toEqual(full.body.summary);
    // Nothing of the profile but the username travels.
    const personal = ex.compact.find((f) => f.path.endsWith("personal_information.json"));
    expect(JSON.parse(personal?.text ?? "null")).toEqual({
      profile_user: [{ string_map_data: { Username: { value: expect.any(String) } } }],
    });
  });
});
