import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ByteSource } from "../../src/destinations/destination.ts";
import { FRAGMENT_UNIT } from "../../src/providers/microsoft/onedrive.client.ts";
import { quickXorHash } from "../../src/providers/microsoft/quickxor.ts";
import { bytes, control } from "../support/destinations.ts";
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
 * Issue 38 item 8: a download of known length is piped into OneDrive's simple PUT (≤ 4 MB) or
 * into each session fragment (nothing held but the piece in flight) — each try reads a fresh
 * download, every byte is hashed on the way, and a download that is not the length it
 * announced leaves no file.
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

/** A download announcing `announced` bytes but sending `data`, in 64 KiB pieces. */
function lyingSource(data: Buffer, announced: number) {
  const response = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < data.length; i += 65_536) c.enqueue(data.subarray(i, i + 65_536));
          c.close();
        },
      }),
      { headers: { "content-length": String(announced) } },
    );
  const source: ByteSource = { download: response(), reopen: async () => response() };
  return source;
}

describe("OneDrive destination: downloads piped", () => {
  it("a refused simple PUT is sent again from a fresh download; one file, verified", async () => {
    const { d, waits } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    await control(sandbox, "faults", {
      endpoint: "onedrive.items",
      error: "onedrive:serviceNotAvailable",
      retry_after: 2,
    });
    const data = bytes(3_900_000, 21);
    const source = sourceOf(data);
    const { recorder, told } = recorderOf();
    const stored = await d.put(
      specOf(folder.id, "p.jpg", "image/jpeg"),
      source.source,
      recorder,
      noLease,
    );
    expect(stored).toMatchObject({ size: data.length, hash: quickXorHash(data) });
    expect(waits).toEqual([2000]);
    expect(source.counts.reopened).toBe(1);
    expect(told).toEqual({ opened: [], closed: 0 });
    expect(await h.files()).toMatchObject([
      { size: data.length, quick_xor_hash: quickXorHash(data) },
    ]);
  });

  it("a large file is piped fragment by fragment: after a cut the session is asked where it stands and a fresh download sends only the rest", async () => {
    const { d } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    const data = bytes(3 * FRAGMENT + 777_000, 23);
    await control(sandbox, "onedrive/cut", { after_bytes: FRAGMENT_UNIT + 9 });
    const ranges = await h.calls("onedrive.upload");
    const source = sourceOf(data);
    const { recorder, told } = recorderOf();
    const stored = await d.put(specOf(folder.id, "cut.mp4"), source.source, recorder, noLease);
    expect(stored).toMatchObject({ size: data.length, hash: quickXorHash(data) });
    expect(told.opened).toEqual([{ ref: expect.any(String), total: data.length }]);
    // The cut fragment's bytes were not kept: read again from a new download.
    expect(source.counts.reopened).toBe(1);
    // Four fragments and the rest after the cut; nothing sent twice, one file.
    expect((await h.calls("onedrive.upload")) - ranges).toBe(5);
    expect(await h.files()).toMatchObject([
      { size: data.length, quick_xor_hash: quickXorHash(data) },
    ]);
  });

  it("a download longer or shorter than it announced is refused as length_changed; no file is left", async () => {
    const { d } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    const data = bytes(500_000, 22);
    for (const [name, announced] of [
      ["long.jpg", data.length - 1000],
      ["short.jpg", data.length + 1000],
    ] as const) {
      const err = await failureOf(
        d.put(
          specOf(folder.id, name, "image/jpeg"),
          lyingSource(data, announced),
          recorderOf().recorder,
          noLease,
        ),
      );
      expect(err).toMatchObject({ code: "length_changed" });
    }
    expect(await h.files()).toEqual([]);
  });
});
