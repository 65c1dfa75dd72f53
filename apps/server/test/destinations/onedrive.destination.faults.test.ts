import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  classifyDestinationError,
  DestinationRevokedError,
} from "../../src/destinations/destination.ts";
import { FRAGMENT_UNIT } from "../../src/providers/microsoft/onedrive.client.ts";
import { quickXorHash } from "../../src/providers/microsoft/quickxor.ts";
import { bytes, control, onedriveEmail } from "../support/destinations.ts";
import {
  FOLDER,
  FRAGMENT,
  failureOf,
  noLease,
  onedriveHarness,
  recorderOf,
  sourceOf,
  specOf,
} from "../support/onedrive-destination.ts";

/**
 * Issue 38: OneDrive's failures through the seam, against the sandbox — corruption caught by
 * quickXorHash (nothing corrupt left), a full drive, an expired token refreshed once, a revoked
 * grant, 429/503 waits as Graph asks, and media of unknown length.
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
const h = onedriveHarness(() => sandbox);
const LARGE = 3 * FRAGMENT + 777_000;

describe("OneDrive destination faults", () => {
  it("corruption: the quickXorHash mismatch is caught, the file removed, the session let go", async () => {
    const { d } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    for (const [name, data] of [
      ["c.jpg", bytes(10_000)],
      ["c.mp4", bytes(LARGE)],
    ] as const) {
      await control(sandbox, "onedrive/corrupt", {});
      const { recorder, told } = recorderOf();
      const err = await failureOf(
        d.put(specOf(folder.id, name), sourceOf(data).source, recorder, noLease),
      );
      expect(err).toMatchObject({ code: "quickxor_mismatch" });
      expect(classifyDestinationError(err)).toEqual({ kind: "transient" });
      expect(told.closed).toBe(name.endsWith(".mp4") ? 1 : 0);
      expect(await h.files()).toEqual([]);
      // Sent again, it is whole.
      const stored = await d.put(specOf(folder.id, name), sourceOf(data).source, recorder, noLease);
      expect(stored.hash).toBe(quickXorHash(data));
      await d.remove(stored.id);
    }
    await control(sandbox, "onedrive/corrupt", {});
    const spec = specOf(folder.id, "m_meta.json", "application/json");
    const sidecar = await failureOf(d.putBytes(spec, Buffer.from('{"a":1}')));
    expect(classifyDestinationError(sidecar)).toEqual({ kind: "transient" });
    expect(await h.files()).toEqual([]);
  });

  it("a full drive is quota_full; nothing is left", async () => {
    const { d } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    await control(sandbox, "onedrive/quota", { email: onedriveEmail, bytes: 1000 });
    for (const data of [bytes(5000), bytes(LARGE)]) {
      const err = await failureOf(
        d.put(
          specOf(folder.id, `f${data.length}.mp4`),
          sourceOf(data).source,
          recorderOf().recorder,
          noLease,
        ),
      );
      expect(classifyDestinationError(err)).toEqual({ kind: "quota_full" });
    }
    expect(await h.files()).toEqual([]);
  });

  it("an expired token is refreshed once and the call goes through; a revoked grant is DestinationRevokedError", async () => {
    const { d, held } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    await control(sandbox, "tokens/expire", { token: held.access });
    const data = bytes(2000);
    const stored = await d.put(
      specOf(folder.id, "e.jpg"),
      sourceOf(data).source,
      recorderOf().recorder,
      noLease,
    );
    expect(stored.hash).toBe(quickXorHash(data));
    expect(held.refreshes).toBe(1);

    await control(sandbox, "tokens/revoke", { microsoft_email: onedriveEmail });
    const err = await failureOf(d.get(stored.id));
    expect(err).toBeInstanceOf(DestinationRevokedError);
    expect(err).toMatchObject({ destination: "onedrive" });
    expect(classifyDestinationError(err)).toEqual({ kind: "revoked" });
    expect(held.refreshes).toBe(2);
  });

  it("429 and 503 wait as Retry-After says (items and upload ranges); past the attempts it is throttled", async () => {
    const { d, waits } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    await control(sandbox, "faults", {
      endpoint: "onedrive.items",
      error: "onedrive:activityLimitReached",
      retry_after: 3,
    });
    await control(sandbox, "faults", {
      endpoint: "onedrive.upload",
      error: "onedrive:serviceNotAvailable",
      retry_after: 2,
    });
    const data = bytes(LARGE, 4);
    const source = sourceOf(data);
    const ranges = await h.calls("onedrive.upload");
    const stored = await d.put(
      specOf(folder.id, "t.mp4"),
      source.source,
      recorderOf().recorder,
      noLease,
    );
    expect(stored.hash).toBe(quickXorHash(data));
    expect(waits).toEqual([3000, 2000]);
    // The refused range is sent again from a new download; nothing else twice.
    expect(source.counts.reopened).toBe(1);
    expect((await h.calls("onedrive.upload")) - ranges).toBe(Math.ceil(data.length / FRAGMENT) + 1);
    expect(await h.files()).toHaveLength(1);

    await control(sandbox, "faults", {
      endpoint: "onedrive.items",
      error: "onedrive:activityLimitReached",
      retry_after: 7,
      count: 10,
    });
    const err = await failureOf(d.get(stored.id));
    expect(classifyDestinationError(err)).toEqual({ kind: "throttled", retryAfterMs: 7000 });
  });

  it("media of unknown length: read into memory up to the limit (small or through a session), longer refused before any request", async () => {
    const { d } = await h.open({ unknownLengthLimit: 6 * FRAGMENT_UNIT * 4 });
    const folder = await d.ensureFolder("acct", FOLDER);
    const small = bytes(100_000, 6);
    const large = bytes(LARGE, 7);
    const { recorder, told } = recorderOf();
    const a = await d.put(
      specOf(folder.id, "u.jpg"),
      sourceOf(small, { length: false }).source,
      recorder,
      noLease,
    );
    const b = await d.put(
      specOf(folder.id, "u.mp4"),
      sourceOf(large, { length: false }).source,
      recorder,
      noLease,
    );
    expect([a.hash, b.hash]).toEqual([quickXorHash(small), quickXorHash(large)]);
    expect(told.opened).toEqual([{ ref: expect.any(String), total: large.length }]);

    const before = await control(sandbox, "calls");
    const err = await failureOf(
      d.put(
        specOf(folder.id, "long.mp4"),
        sourceOf(bytes(7 * FRAGMENT), { length: false }).source,
        recorder,
        noLease,
      ),
    );
    expect(err).toMatchObject({ code: "length_required" });
    expect((err as Error).message).toMatch(/size was not given/);
    expect(classifyDestinationError(err)).toEqual({ kind: "permanent" });
    expect(await control(sandbox, "calls")).toEqual(before);
  });
});
