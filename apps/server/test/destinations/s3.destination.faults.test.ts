import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { classifyDestinationError, DestinationRevokedError } from "../../src/destinations/index.ts";
import { bytes, control, s3Settings } from "../support/destinations.ts";
import {
  calls,
  FOLDER,
  failureOf,
  keys,
  MiB,
  md5,
  read,
  recorder,
  s3Destination,
  source,
  spec,
  stored,
} from "../support/s3-destination.ts";

/** The S3 adapter's failures, each classified as the engine, the alerts and the status page act. */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  await sandbox.reset();
  await control(sandbox, "s3/flavor", { flavor: "r2" });
});

const noLease = { resume: null, checkLease: () => {} };
const bucket = () => s3Settings(sandbox).bucket;

describe("S3 destination: hashes", () => {
  it("a corrupted write is found by its ETag, deleted and written again", async () => {
    const { session } = s3Destination(sandbox);
    const data = bytes(30_000, 4);
    await control(sandbox, "s3/corrupt", { count: 1 });
    const file = await session.put(spec(), source(data), recorder(), noLease);
    expect(file.hash).toBe(md5(data));
    expect(await calls(sandbox, "s3.put")).toBe(2);
    expect(await calls(sandbox, "s3.delete")).toBe(1);
    expect(md5(await read(sandbox, file.id))).toBe(md5(data));
  });

  it("corruption that persists fails the put as transient and leaves no corrupt file", async () => {
    const { session } = s3Destination(sandbox, { attempts: 2 });
    await control(sandbox, "s3/corrupt", { count: 2 });
    const err = await failureOf(session.put(spec(), source(bytes(30_000)), recorder(), noLease));
    expect(err).toMatchObject({ kind: "transient", code: "etag_mismatch" });
    expect(classifyDestinationError(err)).toEqual({ kind: "transient" });
    expect((await stored(sandbox)).objects).toEqual([]);
    // putBytes (sidecars) holds to the same check.
    await control(sandbox, "s3/corrupt", { count: 2 });
    const json = spec("photo.json", { mimeType: "application/json" });
    expect(await failureOf(session.putBytes(json, Buffer.from("{}")))).toMatchObject({
      code: "etag_mismatch",
    });
    expect((await stored(sandbox)).objects).toEqual([]);
  });

  it("a corrupted part is sent again; the object is made of what was sent", async () => {
    const { session } = s3Destination(sandbox);
    const data = bytes(11 * MiB, 6);
    await control(sandbox, "s3/corrupt", { count: 1 });
    const file = await session.put(spec("v.mp4"), source(data), recorder(), noLease);
    expect(await calls(sandbox, "s3.multipart.part")).toBe(4); // 3 parts, the first twice
    expect(md5(await read(sandbox, file.id))).toBe(md5(data));
    expect((await stored(sandbox)).uploads).toEqual([]);
  });
});

describe("S3 destination: lost answers", () => {
  it("a completion whose answer is lost: the retry finds no upload, the object is there", async () => {
    const { session, waits } = s3Destination(sandbox);
    const data = bytes(11 * MiB, 7);
    await control(sandbox, "s3/lose-answer", { endpoint: "s3.multipart.complete" });
    const r = recorder();
    const file = await session.put(spec("v.mp4"), source(data), r, noLease);
    expect(waits).toHaveLength(1); // the caller's retry of the completion
    expect(await calls(sandbox, "s3.multipart.complete")).toBe(2);
    expect(r.events).toEqual([`opened ${data.length}`, "closed"]);
    expect(file.hash).toMatch(/-3$/);
    expect((await stored(sandbox)).objects.map((o) => o.key)).toEqual([`${FOLDER}/v.mp4`]);
    expect(md5(await read(sandbox, file.id))).toBe(md5(data));
  });

  it("a PUT whose answer is lost: its retry is refused (412) and the object adopted", async () => {
    const { session } = s3Destination(sandbox);
    const data = bytes(3000, 7);
    await control(sandbox, "s3/lose-answer", { endpoint: "s3.put" });
    const file = await session.put(spec(), source(data), recorder(), noLease);
    expect(file).toMatchObject({ id: `${FOLDER}/photo.jpg`, hash: md5(data) });
    expect(await calls(sandbox, "s3.put")).toBe(2);
    expect((await stored(sandbox)).objects).toHaveLength(1);
  });
});

describe("S3 destination: failures", () => {
  it("a full store is quota_full", async () => {
    const { session } = s3Destination(sandbox);
    await control(sandbox, "s3/quota", { bucket: bucket(), bytes: 1000 });
    const err = await failureOf(session.put(spec(), source(bytes(5000)), recorder(), noLease));
    expect(classifyDestinationError(err)).toEqual({ kind: "quota_full" });
    expect((await stored(sandbox)).objects).toEqual([]);
  });

  it("refused keys: the settings are read again once and the call succeeds", async () => {
    const k = keys(sandbox, ["wrong", "right"]);
    const { session } = s3Destination(sandbox, { credentials: k.credentials });
    const file = await session.put(spec(), source(bytes(2000)), recorder(), noLease);
    expect(file.id).toBe(`${FOLDER}/photo.jpg`);
    expect(k.reads).toEqual(["user-1", "user-1"]);
    // The session keeps the working keys.
    await session.get(file.id);
    expect(k.reads).toHaveLength(2);
  });

  it("keys refused again, or settings gone: DestinationRevokedError (reconnect)", async () => {
    const wrong = keys(sandbox, ["wrong"]);
    const a = s3Destination(sandbox, { credentials: wrong.credentials });
    const err = await failureOf(a.session.put(spec(), source(bytes(10)), recorder(), noLease));
    expect(err).toBeInstanceOf(DestinationRevokedError);
    // The words the backup records and the connection is marked with (failure-words.ts).
    expect(err.message).toBe(
      "The S3 storage no longer accepts Keepsake's access keys. Enter new keys in Settings to resume backups.",
    );
    expect(classifyDestinationError(err)).toEqual({ kind: "revoked" });
    expect(wrong.reads).toHaveLength(2);

    const gone = s3Destination(sandbox, { credentials: keys(sandbox, ["gone"]).credentials });
    const err2 = await failureOf(gone.session.get(`${FOLDER}/photo.jpg`));
    expect(err2).toBeInstanceOf(DestinationRevokedError);
    expect(err2.message).toBe("Connect your S3 storage again.");
  });

  it("SlowDown waits as asked; past the attempts it is throttled with its wait", async () => {
    const { session, waits } = s3Destination(sandbox);
    await control(sandbox, "faults", { endpoint: "s3.put", error: "s3:SlowDown", retry_after: 2 });
    await session.put(spec(), source(bytes(100)), recorder(), noLease);
    expect(waits).toEqual([2000]);

    await control(sandbox, "faults", {
      endpoint: "s3.head",
      error: "s3:SlowDown",
      retry_after: 3,
      count: 10,
    });
    const err = await failureOf(session.get(`${FOLDER}/photo.jpg`));
    expect(classifyDestinationError(err)).toEqual({ kind: "throttled", retryAfterMs: 3000 });
  });

  it("an internal error is retried, then transient; a missing bucket is permanent", async () => {
    const { session, waits } = s3Destination(sandbox, { attempts: 2 });
    await control(sandbox, "faults", { endpoint: "s3.put", error: "s3:InternalError", count: 2 });
    const err = await failureOf(session.putBytes(spec("a.json"), Buffer.from("{}")));
    expect(classifyDestinationError(err)).toEqual({ kind: "transient" });
    expect(waits).toHaveLength(1);

    const credentials = {
      s3Settings: async () => ({ ...s3Settings(sandbox), bucket: "no-such-bucket" }),
    };
    const none = s3Destination(sandbox, { credentials });
    const err2 = await failureOf(none.session.putBytes(spec("a.json"), Buffer.from("{}")));
    expect(classifyDestinationError(err2)).toEqual({ kind: "permanent" });
  });
});
