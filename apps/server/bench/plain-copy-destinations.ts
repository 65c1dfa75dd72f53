import { Readable } from "node:stream";
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { byteSlices } from "../src/providers/byte-slices.ts";
import { DROPBOX_BLOCK } from "../src/providers/dropbox/content-hash.ts";
import { DROPBOX_MAX_SINGLE, headerJson } from "../src/providers/dropbox/dropbox.client.ts";
import { streamRequest } from "../src/providers/http.ts";
import { MAX_FRAGMENT, MAX_SIMPLE_UPLOAD } from "../src/providers/microsoft/onedrive.client.ts";
import type { S3Settings } from "../src/providers/s3/s3.client.ts";
import { type CountedBody, expectAnswer, type PlainCopyOne } from "./plain-copy.ts";

/**
 * The reference copies into the other destinations, each the fewest requests that destination
 * takes for a file, every request's body piped from the download as it arrives.
 */

const TIMEOUT_MS = 120_000;
const cutShort = () => new Error("plain copy: the download was cut short");

/** Dropbox: one `files/upload` up to 150 MB, else a session of the largest 4 MiB multiples. */
export function dropboxPlainCopy(sandboxUrl: string, token: string): PlainCopyOne {
  const content = (endpoint: string, arg: unknown, length: number, body: CountedBody) =>
    streamRequest(new URL(`${sandboxUrl}/content.dropboxapi.com/2/files/${endpoint}`), {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/octet-stream",
        "dropbox-api-arg": headerJson(arg),
        "content-length": String(length),
      },
      body,
      timeoutMs: TIMEOUT_MS,
    });
  // The largest append Dropbox takes in one request: a multiple of 4 MiB under 150 MB.
  const chunk = Math.floor(DROPBOX_MAX_SINGLE / DROPBOX_BLOCK) * DROPBOX_BLOCK;
  return async (body, total, n) => {
    const commit = { path: `/plain-copy/${n}`, mode: "add", autorename: false, mute: true };
    if (total <= DROPBOX_MAX_SINGLE) {
      await expectAnswer(await content("upload", commit, total, body), [200], "Dropbox upload");
      return;
    }
    const slices = byteSlices(body, { short: cutShort });
    const started = await content(
      "upload_session/start",
      { close: false },
      chunk,
      slices.take(chunk),
    );
    if (started.status !== 200) throw new Error(`plain copy: Dropbox start ${started.status}`);
    const { session_id } = (await started.json()) as { session_id: string };
    let offset = chunk;
    while (total - offset > chunk) {
      const cursor = { session_id, offset };
      const appended = await content(
        "upload_session/append_v2",
        { cursor },
        chunk,
        slices.take(chunk),
      );
      await expectAnswer(appended, [200], "Dropbox append");
      offset += chunk;
    }
    const last = total - offset;
    const finished = await content(
      "upload_session/finish",
      { cursor: { session_id, offset }, commit },
      last,
      slices.take(last),
    );
    await expectAnswer(finished, [200], "Dropbox finish");
  };
}

/** OneDrive: one `PUT …/content` up to 4 MB, else a session and fragments of the largest size. */
export function onedrivePlainCopy(sandboxUrl: string, token: string): PlainCopyOne {
  const root = `${sandboxUrl}/graph.microsoft.com/v1.0/me/drive/special/approot:/plain-copy`;
  const auth = { authorization: `Bearer ${token}` };
  return async (body, total, n) => {
    if (total <= MAX_SIMPLE_UPLOAD) {
      const u = new URL(`${root}/${n}:/content`);
      u.searchParams.set("@microsoft.graph.conflictBehavior", "fail");
      const answer = await streamRequest(u, {
        method: "PUT",
        headers: {
          ...auth,
          "content-type": "application/octet-stream",
          "content-length": String(total),
        },
        body,
        timeoutMs: TIMEOUT_MS,
      });
      await expectAnswer(answer, [200, 201], "OneDrive PUT");
      return;
    }
    const opened = await fetch(`${root}/${n}:/createUploadSession`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ item: { "@microsoft.graph.conflictBehavior": "fail" } }),
    });
    if (opened.status !== 200) throw new Error(`plain copy: OneDrive session ${opened.status}`);
    const { uploadUrl } = (await opened.json()) as { uploadUrl: string };
    const slices = byteSlices(body, { short: cutShort });
    for (let from = 0; from < total; from += MAX_FRAGMENT) {
      const length = Math.min(MAX_FRAGMENT, total - from);
      const answer = await streamRequest(new URL(uploadUrl), {
        method: "PUT",
        headers: {
          "content-range": `bytes ${from}-${from + length - 1}/${total}`,
          "content-length": String(length),
        },
        body: slices.take(length),
        timeoutMs: TIMEOUT_MS,
      });
      await expectAnswer(answer, from + length < total ? [202] : [200, 201], "OneDrive fragment");
    }
  };
}

/**
 * The most the sandbox's S3 takes in one request (it holds a request's body whole; AWS takes up
 * to 5 GB in one PutObject): sandbox/src/routes/s3/body.ts.
 */
const S3_SANDBOX_MAX_BODY = 256 * 1024 * 1024;

/**
 * S3: one PutObject per file, through the official client; a file larger than one request
 * takes (the sandbox's limit) goes in the fewest equal parts of a multipart upload.
 */
export function s3PlainCopy(settings: S3Settings): PlainCopyOne {
  const s3 = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: true,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const Bucket = settings.bucket;
  return async (body, total, n) => {
    const Key = `${settings.prefix}plain-copy/${n}`;
    if (total <= S3_SANDBOX_MAX_BODY) {
      await s3.send(
        new PutObjectCommand({
          Bucket,
          Key,
          Body: Readable.from(body),
          ContentLength: total,
          IfNoneMatch: "*",
        }),
      );
      return;
    }
    const mib = 1024 * 1024;
    const part = Math.ceil(total / Math.ceil(total / S3_SANDBOX_MAX_BODY) / mib) * mib;
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    const slices = byteSlices(body, { short: cutShort });
    const Parts: { ETag: string; PartNumber: number }[] = [];
    for (let from = 0; from < total; from += part) {
      const ContentLength = Math.min(part, total - from);
      const PartNumber = Parts.length + 1;
      const { ETag } = await s3.send(
        new UploadPartCommand({
          Bucket,
          Key,
          UploadId,
          PartNumber,
          Body: Readable.from(slices.take(ContentLength)),
          ContentLength,
        }),
      );
      Parts.push({ ETag: ETag as string, PartNumber });
    }
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key,
        UploadId,
        MultipartUpload: { Parts },
        IfNoneMatch: "*",
      }),
    );
  };
}
