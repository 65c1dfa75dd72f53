import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  classifyDestinationError,
  UploadSessionGoneError,
} from "../../src/destinations/destination.ts";
import { sessionRef } from "../../src/destinations/dropbox/files.ts";
import { dropboxCapabilities } from "../../src/destinations/dropbox.ts";
import { dropboxContentHash } from "../../src/providers/dropbox/content-hash.ts";
import { bytes, control } from "../support/destinations.ts";
import {
  calls,
  dropboxDestination,
  recording,
  sourceOf,
  spec,
  stored,
} from "../support/dropbox-destination.ts";

/**
 * Issue 38: Dropbox behind the destination seam, against the sandbox's Dropbox with a grant
 * from its OAuth — folders, one-request and session uploads, the content hash, the post's
 * time, exactly once under kills and cuts, " (2)" beside a different file, in-place writes,
 * and each failure classified as the engine acts on it.
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

describe("Dropbox through the destination seam", () => {
  it("says what it can do", () => {
    expect(dropboxCapabilities).toMatchObject({
      label: "Dropbox",
      maxSingleRequestBytes: 8 * MiB,
      chunkQuantumBytes: 4 * MiB,
      lengthRequiredUpFront: false,
      verifiedHash: "dropbox_content_hash",
      setsModifiedTime: true,
      findsByTags: false,
    });
  });

  it("makes a folder path once per process; a small file in one request, its time, hash and link", async () => {
    const { d, client, tokens } = await dropboxDestination(sandbox);
    // A folder made earlier (another installation) is fine.
    await client.createFolder(tokens.accessToken, "/Keepsake/@lumen.studio");
    const folder = await d.ensureFolder("dbid:any", FOLDER);
    expect(folder).toMatchObject({ id: "Keepsake/@lumen.studio/2024", adopted: false });
    const before = await calls(sandbox, "files/create_folder_v2");
    await d.ensureFolder("dbid:any", FOLDER);
    expect(await calls(sandbox, "files/create_folder_v2")).toBe(before);
    expect(
      (await client.getMetadata(tokens.accessToken, "/Keepsake/@lumen.studio/2024"))?.tag,
    ).toBe("folder");

    const data = bytes(300_000);
    const { recorder, events } = recording();
    const uploads = await calls(sandbox, "files/upload");
    const file = await d.put(
      spec(folder.id, "2024-05-06_abc.jpg", POSTED),
      sourceOf(data),
      recorder,
      lease,
    );
    expect(await calls(sandbox, "files/upload")).toBe(uploads + 1);
    expect(events).toEqual([]);
    expect(file).toEqual({
      id: expect.stringMatching(/^id:/),
      name: "2024-05-06_abc.jpg",
      size: data.length,
      hash: dropboxContentHash(data),
      webUrl:
        "https://www.dropbox.com/home/Apps/Keepsake/Keepsake/@lumen.studio/2024/2024-05-06_abc.jpg",
      tags: { item: "2024-05-06_abc.jpg", post: "p1" },
      folderId: folder.id,
    });
    expect((await stored(sandbox)).files).toEqual([
      {
        path: `${APP}/2024-05-06_abc.jpg`,
        size: data.length,
        content_hash: dropboxContentHash(data),
        client_modified: POSTED.toISOString(),
      },
    ]);
    expect(await d.get(file.id)).toMatchObject({
      id: file.id,
      hash: file.hash,
      folderId: folder.id,
    });
    // Of unknown length too, read into one request.
    const other = bytes(1000, 9);
    const second = await d.put(
      spec(folder.id, "b.jpg"),
      sourceOf(other, { unknownLength: true }),
      recorder,
      lease,
    );
    expect(second).toMatchObject({ size: 1000, hash: dropboxContentHash(other) });
    expect(await d.findPostFiles("p1")).toEqual(new Map());
    expect(await d.findItem("b.jpg")).toEqual([]);

    await d.remove(file.id);
    await d.remove(file.id);
    expect(classifyDestinationError(await failureOf(d.get(file.id)))).toEqual({
      kind: "not_found",
    });
    expect((await stored(sandbox)).files.map((f) => f.path)).toEqual([`${APP}/b.jpg`]);
  });

  it("a large file through a session recorded before its first byte; a kill, then resumed from the recorded ref through a cut: one file", async () => {
    const { d } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const data = bytes(20 * MiB + 5, 3);
    const { recorder, events, lastRef } = recording();
    let checks = 0;
    const killed = await failureOf(
      d.put(spec(folder.id, "reel.mp4", POSTED), sourceOf(data), recorder, {
        resume: null,
        // The claim is lost after the first 8 MiB arrived (the worker is killed).
        checkLease: () => {
          if (++checks >= 3) throw new Error("lease lost");
        },
      }),
    );
    expect(String(killed)).toContain("lease lost");
    expect(events).toEqual([{ opened: expect.any(String), total: data.length }]);
    const ref = lastRef() as string;
    expect(JSON.parse(ref)).toEqual({
      dropbox_session: expect.any(String),
      path: "/Keepsake/@lumen.studio/2024/reel.mp4",
    });

    const st = await d.uploadStatus(ref, data.length);
    expect(st).toEqual({ open: { ref, total: data.length, received: 8 * MiB } });
    if (!st || !("open" in st)) throw new Error("open expected");
    await control(sandbox, "dropbox/cut", { after_bytes: MiB });
    const appends = await calls(sandbox, "files/upload_session/append_v2");
    const file = await d.put(spec(folder.id, "reel.mp4", POSTED), sourceOf(data), recorder, {
      resume: st.open,
      checkLease: () => {},
    });
    // Two probes, the cut append (piped: its bytes are not kept), a probe, a probe on the fresh
    // read of the media, the append again, the last 4 MiB (piped too: the finish carries none):
    // the first 8 MiB are not sent twice.
    expect((await calls(sandbox, "files/upload_session/append_v2")) - appends).toBe(7);
    expect(file).toMatchObject({
      name: "reel.mp4",
      size: data.length,
      hash: dropboxContentHash(data),
    });
    expect(events.slice(1)).toEqual([
      { opened: expect.stringContaining(dropboxContentHash(data)), total: data.length },
      "closed",
    ]);
    const after = await stored(sandbox);
    expect(after.sessions).toEqual([]);
    expect(after.files).toEqual([
      {
        path: `${APP}/reel.mp4`,
        size: data.length,
        content_hash: dropboxContentHash(data),
        client_modified: POSTED.toISOString(),
      },
    ]);
  });

  it("sessions at once: of known length every byte is piped, the last part too (nothing held, none waits); of unknown length chunks are gathered: every file is what was sent", async () => {
    const { d } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const datas = [bytes(13 * MiB + 1, 31), bytes(9 * MiB + 2, 32), bytes(15 * MiB + 3, 33)];
    const unknown = bytes(11 * MiB + 4, 34);
    // The first stops in the middle of its last part until the second has read all of its own,
    // or 10 s: a last part gathered in a buffer the uploads share would make the second wait.
    let secondRead = () => {};
    const until = Promise.race([
      new Promise<string>((resolve) => {
        secondRead = () => resolve("the second read every byte");
      }),
      new Promise<string>((resolve) => setTimeout(() => resolve("10 s"), 10_000).unref()),
    ]);
    const sources = [
      sourceOf(datas[0] as Buffer, { pause: { offset: 10 * MiB, until } }),
      sourceOf(datas[1] as Buffer, { read: () => secondRead() }),
      sourceOf(datas[2] as Buffer),
    ];
    const appends = await calls(sandbox, "files/upload_session/append_v2");
    const files = await Promise.all([
      ...sources.map((source, i) =>
        d.put(spec(folder.id, `v${i}.mp4`, POSTED), source, recording().recorder, lease),
      ),
      d.put(
        spec(folder.id, "u.mp4", POSTED),
        sourceOf(unknown, { unknownLength: true }),
        recording().recorder,
        lease,
      ),
    ]);
    for (const [i, data] of [...datas, unknown].entries())
      expect(files[i]).toMatchObject({ size: data.length, hash: dropboxContentHash(data) });
    expect(await until).toBe("the second read every byte");
    // Known lengths: 8 MiB, then the rest, appended (two each); the unknown one appends one
    // gathered 8 MiB chunk and sends its last part with the finish. One finish each.
    expect((await calls(sandbox, "files/upload_session/append_v2")) - appends).toBe(7);
    expect(await calls(sandbox, "files/upload_session/finish")).toBe(4);
    // And again, from the chunk buffer the unknown one gave back.
    const again = bytes(12 * MiB + 5, 35);
    expect(
      await d.put(spec(folder.id, "w.mp4", POSTED), sourceOf(again), recording().recorder, lease),
    ).toMatchObject({ size: again.length, hash: dropboxContentHash(again) });
    const kept = (await stored(sandbox)).files;
    expect(kept.map((f) => f.content_hash).sort()).toEqual(
      [...datas, unknown, again].map((b) => dropboxContentHash(b)).sort(),
    );
  });

  it("a download of unknown length larger than one request continues through a session", async () => {
    const { d } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const { recorder, events } = recording();
    const data = bytes(9 * MiB + 7, 4);
    const uploads = await calls(sandbox, "files/upload");
    const file = await d.put(
      spec(folder.id, "u.mp4", POSTED),
      sourceOf(data, { unknownLength: true }),
      recorder,
      lease,
    );
    expect(file).toMatchObject({ size: data.length, hash: dropboxContentHash(data) });
    expect(await calls(sandbox, "files/upload")).toBe(uploads);
    expect(events).toEqual([
      { opened: expect.any(String), total: null },
      { opened: expect.stringContaining(dropboxContentHash(data)), total: null },
      "closed",
    ]);
    expect((await stored(sandbox)).files).toEqual([
      expect.objectContaining({ path: `${APP}/u.mp4`, client_modified: POSTED.toISOString() }),
    ]);
  });

  it("a kill after the upload, before the record: the retry adopts the file written (small and large)", async () => {
    const { d } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const small = bytes(5000, 1);
    const { recorder, lastRef } = recording();
    const first = await d.put(spec(folder.id, "s.jpg", POSTED), sourceOf(small), recorder, lease);
    const again = await d.put(spec(folder.id, "s.jpg", POSTED), sourceOf(small), recorder, lease);
    expect(again.id).toBe(first.id);

    const large = bytes(9 * MiB, 2);
    const big = await d.put(spec(folder.id, "v.mp4", POSTED), sourceOf(large), recorder, lease);
    // The ledger still holds the session (the record never happened): it finished.
    const ref = lastRef() as string;
    expect(await d.uploadStatus(ref, large.length)).toEqual({
      done: expect.objectContaining({
        id: big.id,
        size: large.length,
        hash: dropboxContentHash(large),
      }),
    });
    // Sent again from scratch: the file there with these bytes is the answer, not finished again.
    const finishes = await calls(sandbox, "files/upload_session/finish");
    const retried = await d.put(spec(folder.id, "v.mp4", POSTED), sourceOf(large), recorder, lease);
    expect(retried.id).toBe(big.id);
    expect(await calls(sandbox, "files/upload_session/finish")).toBe(finishes);
    expect((await stored(sandbox)).files.map((f) => f.path)).toEqual([
      `${APP}/s.jpg`,
      `${APP}/v.mp4`,
    ]);
  });

  it("other bytes at the path: the new file is written beside it as ' (2)', the original untouched", async () => {
    const { d } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const { recorder } = recording();
    const a = bytes(4000, 1);
    const b = bytes(4000, 2);
    const original = await d.put(spec(folder.id, "p.jpg"), sourceOf(a), recorder, lease);
    const beside = await d.put(spec(folder.id, "p.jpg"), sourceOf(b), recorder, lease);
    expect(beside).toMatchObject({ name: "p (2).jpg", hash: dropboxContentHash(b) });
    expect(beside.id).not.toBe(original.id);
    // The same other bytes again adopt the " (2)" file.
    expect((await d.put(spec(folder.id, "p.jpg"), sourceOf(b), recorder, lease)).id).toBe(
      beside.id,
    );

    const x = bytes(9 * MiB, 3);
    const y = bytes(9 * MiB, 4);
    await d.put(spec(folder.id, "v.mp4"), sourceOf(x), recorder, lease);
    const v2 = await d.put(spec(folder.id, "v.mp4"), sourceOf(y), recorder, lease);
    expect(v2).toMatchObject({ name: "v (2).mp4", hash: dropboxContentHash(y) });
    const files = (await stored(sandbox)).files;
    expect(files.map((f) => [f.path, f.content_hash])).toEqual([
      [`${APP}/p (2).jpg`, dropboxContentHash(b)],
      [`${APP}/p.jpg`, dropboxContentHash(a)],
      [`${APP}/v (2).mp4`, dropboxContentHash(y)],
      [`${APP}/v.mp4`, dropboxContentHash(x)],
    ]);
  });

  it("putBytes overwrites Keepsake's own file; replace writes in place and keeps the id", async () => {
    const { d } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const one = Buffer.from('{"caption":"one"}');
    const two = Buffer.from('{"caption":"two, longer"}');
    const first = await d.putBytes(spec(folder.id, "x_meta.json", POSTED), one);
    const second = await d.putBytes(spec(folder.id, "x_meta.json", POSTED), two);
    expect(second).toMatchObject({ id: first.id, size: two.length, hash: dropboxContentHash(two) });
    const three = Buffer.from('{"caption":"three"}');
    const replaced = await d.replace(first.id, three, "application/json");
    expect(replaced).toMatchObject({
      id: first.id,
      name: "x_meta.json",
      hash: dropboxContentHash(three),
      folderId: folder.id,
    });
    expect((await stored(sandbox)).files).toEqual([
      expect.objectContaining({
        path: `${APP}/x_meta.json`,
        content_hash: dropboxContentHash(three),
      }),
    ]);
    await d.remove(first.id);
    const err = await failureOf(d.replace(first.id, three, "application/json"));
    expect(classifyDestinationError(err)).toEqual({ kind: "not_found" });
  });

  it("uploadStatus of a session that is gone, or of a ref that is not Dropbox's: null; resuming it: UploadSessionGoneError", async () => {
    const { d } = await dropboxDestination(sandbox);
    const folder = await d.ensureFolder("a", FOLDER);
    const ref = sessionRef({
      sessionId: "pid_upload_session:gone",
      path: "/Keepsake/@lumen.studio/2024/v.mp4",
      contentHash: null,
    });
    expect(await d.uploadStatus(ref, 10 * MiB)).toBeNull();
    expect(await d.uploadStatus("https://example.com/upload", 10)).toBeNull();
    // Finished elsewhere with other bytes: not this upload's file.
    const withHash = sessionRef({
      sessionId: "pid_upload_session:gone",
      path: "/Keepsake/@lumen.studio/2024/v.mp4",
      contentHash: "0".repeat(64),
    });
    expect(await d.uploadStatus(withHash, 10 * MiB)).toBeNull();
    const { recorder } = recording();
    const err = await failureOf(
      d.put(spec(folder.id, "v.mp4"), sourceOf(bytes(10 * MiB)), recorder, {
        resume: { ref, total: 10 * MiB, received: 8 * MiB },
        checkLease: () => {},
      }),
    );
    expect(err).toBeInstanceOf(UploadSessionGoneError);
  });
});
