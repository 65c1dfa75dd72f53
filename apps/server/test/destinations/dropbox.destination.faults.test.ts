import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  classifyDestinationError,
  DestinationRevokedError,
} from "../../src/destinations/destination.ts";
import { DROPBOX_RECONNECT } from "../../src/destinations/dropbox.ts";
import { dropboxContentHash } from "../../src/providers/dropbox/content-hash.ts";
import { ProviderError } from "../../src/providers/provider-error.ts";
import { bytes, control, dropboxEmail } from "../support/destinations.ts";
import {
  calls,
  dropboxDestination,
  recording,
  sourceOf,
  spec,
  stored,
  USER,
} from "../support/dropbox-destination.ts";

/**
 * Issue 38: the Dropbox destination's failures against the sandbox's Dropbox — corruption,
 * a full Dropbox, throttling, cuts and broken downloads mid-session, expired and revoked
 * grants — each handled or classified as the engine acts on it.
 */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  await sandbox.reset();
});

const MiB = 1024 * 1024;
const POSTED = new Date("2024-05-06T07:08:09.000Z");
const FOLDER = ["Keepsake", "@lumen.studio", "2024"];
const APP = "/Apps/Keepsake/Keepsake/@lumen.studio/2024";
const lease = { resume: null, checkLease: () => {} };

const failureOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
};

describe("Dropbox destination failures", () => {
  it("corruption: Dropbox refuses bytes whose hash differs; retried, or failed as transient with no file left", async () => {
    const { d, waits } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const { recorder, events } = recording();
    const data = bytes(2000);
    await control(sandbox, "dropbox/corrupt", { count: 1 });
    const file = await d.put(spec(folder.id, "ok.jpg"), sourceOf(data), recorder, lease);
    expect(file.hash).toBe(dropboxContentHash(data));
    expect(waits).toHaveLength(1);

    // A session whose bytes Dropbox refused is not resumed: the next try writes a new one.
    const once = recording();
    const big = bytes(9 * MiB, 1);
    await control(sandbox, "dropbox/corrupt", { count: 1 });
    const whole = await d.put(spec(folder.id, "ok.mp4"), sourceOf(big), once.recorder, lease);
    expect(whole.hash).toBe(dropboxContentHash(big));
    const sessions = once.events.flatMap((e) =>
      e === "closed" ? [] : [JSON.parse(e.opened).dropbox_session],
    );
    expect(new Set(sessions).size).toBe(2);

    await control(sandbox, "dropbox/corrupt", { count: 20 });
    const small = await failureOf(d.put(spec(folder.id, "c.jpg"), sourceOf(data), recorder, lease));
    expect(small).toMatchObject({ kind: "transient", code: "content_hash_mismatch" });
    expect(classifyDestinationError(small)).toEqual({ kind: "transient" });
    const opened = { count: 0 };
    const large = await failureOf(
      d.put(spec(folder.id, "c.mp4"), sourceOf(bytes(9 * MiB), { opened }), recorder, lease),
    );
    expect(large).toMatchObject({ kind: "transient", code: "content_hash_mismatch" });
    expect(opened.count).toBe(4); // each try reads the media again
    expect(events[events.length - 1]).toBe("closed");
    const after = await stored(sandbox);
    expect(after.files.map((f) => f.path)).toEqual([`${APP}/ok.jpg`, `${APP}/ok.mp4`]);
  });

  it("a full Dropbox is quota_full; too many writes waits as asked, then throttled; a refused call permanent, 5xx and resets transient", async () => {
    const { d, waits } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const { recorder } = recording();
    await control(sandbox, "dropbox/quota", { email: dropboxEmail, bytes: 100 });
    const full = await failureOf(
      d.put(spec(folder.id, "q.jpg"), sourceOf(bytes(500)), recorder, lease),
    );
    expect(classifyDestinationError(full)).toEqual({ kind: "quota_full" });
    const fullLarge = await failureOf(
      d.put(spec(folder.id, "q.mp4"), sourceOf(bytes(9 * MiB)), recorder, lease),
    );
    expect(classifyDestinationError(fullLarge)).toEqual({ kind: "quota_full" });
    await control(sandbox, "dropbox/quota", { email: dropboxEmail, bytes: 100 * MiB });

    const fault = (count: number) =>
      control(sandbox, "faults", {
        endpoint: "dropbox.files/upload",
        error: "dropbox:too_many_write_operations",
        retry_after: 2,
        count,
      });
    await fault(1);
    const file = await d.putBytes(spec(folder.id, "t.json"), Buffer.from("{}"));
    expect(file.size).toBe(2);
    expect(waits).toEqual([2000]);
    await fault(10);
    const err = await failureOf(d.putBytes(spec(folder.id, "t.json"), Buffer.from("{}")));
    expect(err).toBeInstanceOf(ProviderError);
    expect(classifyDestinationError(err)).toEqual({ kind: "throttled", retryAfterMs: 2000 });
    await fetch(`${sandbox.url}/_control/faults`, { method: "DELETE" });
    // A call Dropbox cannot read (a path it refuses) is not retried: permanent.
    const bad = await failureOf(d.putBytes(spec(folder.id, ""), Buffer.from("{}")));
    expect(classifyDestinationError(bad)).toEqual({ kind: "permanent" });
    // Dropbox failing (5xx) is transient, retried until the attempts run out.
    await control(sandbox, "faults", {
      endpoint: "dropbox.files/upload",
      error: "http:503",
      count: 10,
    });
    const down = await failureOf(d.putBytes(spec(folder.id, "t.json"), Buffer.from("{}")));
    expect(classifyDestinationError(down)).toEqual({ kind: "transient" });
    // Connections reset: a network failure, transient too.
    await fetch(`${sandbox.url}/_control/faults`, { method: "DELETE" });
    await control(sandbox, "faults", {
      endpoint: "dropbox.files/upload",
      error: "reset",
      count: 10,
    });
    const reset = await failureOf(d.putBytes(spec(folder.id, "t.json"), Buffer.from("{}")));
    expect(reset).toMatchObject({ kind: "network" });
    expect(classifyDestinationError(reset)).toEqual({ kind: "transient" });
  });

  it("a full Dropbox at the finish keeps the session: once freed, resumed from the ref and finished without sending the bytes again", async () => {
    const { d } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const { recorder, lastRef } = recording();
    const data = bytes(9 * MiB, 8);
    await control(sandbox, "dropbox/quota", { email: dropboxEmail, bytes: MiB });
    const full = await failureOf(
      d.put(spec(folder.id, "f.mp4", POSTED), sourceOf(data), recorder, lease),
    );
    expect(classifyDestinationError(full)).toEqual({ kind: "quota_full" });
    await control(sandbox, "dropbox/quota", { email: dropboxEmail, bytes: 100 * MiB });
    const ref = lastRef() as string;
    const st = await d.uploadStatus(ref, data.length);
    expect(st).toEqual({ open: { ref, total: data.length, received: data.length } });
    if (!st || !("open" in st)) throw new Error("open expected");
    const appends = await calls(sandbox, "files/upload_session/append_v2");
    const file = await d.put(spec(folder.id, "f.mp4", POSTED), sourceOf(data), recorder, {
      resume: st.open,
      checkLease: () => {},
    });
    expect(file).toMatchObject({ name: "f.mp4", hash: dropboxContentHash(data) });
    // Only the two empty probes: every byte was held.
    expect((await calls(sandbox, "files/upload_session/append_v2")) - appends).toBe(2);
    expect((await stored(sandbox)).files.map((f) => f.path)).toEqual([`${APP}/f.mp4`]);
  });

  it("a small file of known length is piped: a download that breaks off mid-request is read again, one longer than announced fails, no file of either left", async () => {
    const { d, waits } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const { recorder, events } = recording();
    const data = bytes(3 * MiB, 4);
    let opened = 0;
    const download = (breakAt: number | null, announced = data.length) => {
      opened++;
      const first = opened === 1;
      async function* body() {
        for (let i = 0; i < data.length; i += 256 * 1024) {
          // The first download breaks off after 1 MiB: the request had its first bytes.
          if (first && breakAt !== null && i === breakAt) throw new Error("socket hang up");
          yield data.subarray(i, i + 256 * 1024);
        }
      }
      return new Response(ReadableStream.from(body()), {
        headers: { "content-length": String(announced) },
      });
    };
    const uploads = await calls(sandbox, "files/upload");
    const file = await d.put(
      spec(folder.id, "p.jpg"),
      { download: download(MiB), reopen: async () => download(MiB) },
      recorder,
      lease,
    );
    expect(file).toMatchObject({
      name: "p.jpg",
      size: data.length,
      hash: dropboxContentHash(data),
    });
    expect(opened).toBe(2);
    expect(waits).toHaveLength(1);
    expect(events).toEqual([]); // one request: no session recorded
    // Both tries reached Dropbox; the broken one kept nothing.
    expect((await calls(sandbox, "files/upload")) - uploads).toBe(2);

    opened = 0;
    const long = await failureOf(
      d.put(
        spec(folder.id, "l.jpg"),
        { download: download(null, MiB), reopen: async () => download(null, MiB) },
        recorder,
        lease,
      ),
    );
    expect(long).toMatchObject({ provider: "instagram", kind: "transient" });
    expect(opened).toBeGreaterThan(1); // each try reads the download again
    expect((await stored(sandbox)).files.map((f) => f.path)).toEqual([`${APP}/p.jpg`]);
  });

  it("mid-session: too many writes waits as asked, a download that breaks off is read again, the session goes on", async () => {
    const { d, waits } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const { recorder, events } = recording();
    const data = bytes(20 * MiB, 9);
    await control(sandbox, "faults", {
      endpoint: "dropbox.files/upload_session/append_v2",
      error: "dropbox:too_many_write_operations",
      retry_after: 3,
    });
    let opened = 0;
    const download = () => {
      opened++;
      async function* body() {
        for (let i = 0; i < data.length; i += MiB) {
          // The second download (after the wait) breaks off after 12 MiB (the CDN).
          if (opened === 2 && i === 12 * MiB) throw new Error("socket hang up");
          yield data.subarray(i, i + MiB);
        }
      }
      return new Response(ReadableStream.from(body()), {
        headers: { "content-length": String(data.length) },
      });
    };
    const appends = await calls(sandbox, "files/upload_session/append_v2");
    const file = await d.put(
      spec(folder.id, "m.mp4"),
      { download: download(), reopen: async () => download() },
      recorder,
      lease,
    );
    expect(file).toMatchObject({ size: data.length, hash: dropboxContentHash(data) });
    expect(opened).toBe(3);
    // The refused append, a probe, 0–8 MiB, 8–16 MiB broken off with the download (piped), a
    // probe after the break (8 MiB held), a probe on the third read, 8–16 MiB, 16–20 MiB.
    expect((await calls(sandbox, "files/upload_session/append_v2")) - appends).toBe(8);
    expect(waits[0]).toBe(3000);
    // One session from first to last.
    const sessions = new Set(
      events.flatMap((e) => (e === "closed" ? [] : [JSON.parse(e.opened).dropbox_session])),
    );
    expect(sessions.size).toBe(1);
    expect(events[events.length - 1]).toBe("closed");
    expect((await stored(sandbox)).files.map((f) => f.path)).toEqual([`${APP}/m.mp4`]);
  });

  it("an expired token is refreshed once and the call succeeds; a revoked grant is DestinationRevokedError", async () => {
    const { d, destination, tokens, credentials } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const { recorder } = recording();
    await control(sandbox, "tokens/expire", { token: tokens.accessToken });
    const large = bytes(9 * MiB, 5);
    const file = await d.put(spec(folder.id, "e.mp4"), sourceOf(large), recorder, lease);
    expect(file.hash).toBe(dropboxContentHash(large));
    expect(credentials.refreshes).toBe(1);
    await d.putBytes(spec(folder.id, "e.json"), Buffer.from("{}"));
    expect(credentials.refreshes).toBe(1);

    // The grant revoked: the refresh is refused, the user must reconnect.
    await control(sandbox, "tokens/revoke", { dropbox_email: dropboxEmail });
    const revoked = await failureOf(d.putBytes(spec(folder.id, "r.json"), Buffer.from("{}")));
    expect(revoked).toBeInstanceOf(DestinationRevokedError);
    expect(revoked).toMatchObject({ destination: "dropbox" });
    expect(classifyDestinationError(revoked)).toEqual({ kind: "revoked" });
    expect(credentials.refreshes).toBe(2);
    // A refreshed token refused again: reconnect, in the words the user reads.
    credentials.staleRefresh = true;
    const again = await failureOf(
      destination.open(USER).putBytes(spec(folder.id, "r.json"), Buffer.from("{}")),
    );
    expect(again).toBeInstanceOf(DestinationRevokedError);
    expect((again as Error).message).toBe(DROPBOX_RECONNECT);
    // Never connected (or disconnected): the credentials say so before any call.
    credentials.refuse = true;
    const none = await failureOf(destination.open(USER).get("id:x"));
    expect(none).toBeInstanceOf(DestinationRevokedError);
  });
});
