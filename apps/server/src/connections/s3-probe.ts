import { randomBytes } from "node:crypto";
import { AppError } from "../lib/errors.ts";
import { ProviderError } from "../providers/provider-error.ts";
import { createS3Client, type S3Settings } from "../providers/s3/s3.client.ts";

type Stage = "write" | "read" | "delete";
const DOING: Record<Stage, string> = {
  write: "writing a test object",
  read: "reading the test object back",
  delete: "deleting the test object",
};

/** `bucket at host`: how Settings names an S3 destination. */
export const s3Label = (s: Pick<S3Settings, "endpoint" | "bucket">) =>
  `${s.bucket} at ${new URL(s.endpoint).host}`;

/**
 * What failed, in words the user can act on. Built from the error's class and code only: the
 * store's message is never repeated (an answer must not carry anything of the keys).
 */
function probeFailure(err: unknown, stage: Stage, s: S3Settings): AppError {
  const host = new URL(s.endpoint).host;
  if (!(err instanceof ProviderError)) {
    return new AppError("bad_request", `The test failed while ${DOING[stage]}.`);
  }
  const code = typeof err.code === "string" ? err.code : null;
  if (err.kind === "network")
    return new AppError(
      "bad_request",
      `Could not reach ${host}. Check the endpoint URL (and that the storage accepts connections from this server).`,
    );
  if (code === "InvalidAccessKeyId")
    return new AppError("bad_request", `${host} does not know this access key ID.`);
  if (code === "SignatureDoesNotMatch")
    return new AppError(
      "bad_request",
      "The secret access key does not match the access key ID (check it, and the region).",
    );
  if (code === "NoSuchBucket" || (err.kind === "permission" && stage === "write"))
    return new AppError("bad_request", `There is no bucket named ${s.bucket} at ${host}.`);
  if (err.kind === "token_invalid")
    return new AppError(
      "bad_request",
      stage === "write"
        ? `${host} refused to let these keys write to ${s.bucket} (${code ?? "AccessDenied"}). Allow them to write, read and delete objects in it.`
        : `The keys may write to ${s.bucket} but ${host} refused ${DOING[stage]} (${code ?? "AccessDenied"}). Allow them to read and delete objects too.`,
    );
  if (err.kind === "quota") return new AppError("bad_request", `The bucket ${s.bucket} is full.`);
  if (err.kind === "throttled")
    return new AppError("bad_request", `${host} is limiting requests right now. Try again.`);
  if (err.kind === "transient")
    return new AppError(
      "bad_request",
      `${host} failed while ${DOING[stage]}${code ? ` (${code})` : ""}. Try again.`,
    );
  if (code === "probe_mismatch")
    return new AppError("bad_request", `${host} gave back other bytes than were written.`);
  return new AppError(
    "bad_request",
    `${host} refused ${DOING[stage]}${code ? ` (${code})` : ""}. Check the bucket's settings.`,
  );
}

/**
 * "Test connection": writes `<prefix>keepsake-probe-<random>` (never over another object),
 * reads it back, deletes it. Throws a 400 `AppError` naming what failed. Never in a transaction.
 */
export async function probeS3(
  s: S3Settings,
  options: { publicOnly?: boolean } = {},
): Promise<void> {
  const client = createS3Client(s, { publicOnly: options.publicOnly ?? false });
  const key = `keepsake-probe-${randomBytes(8).toString("hex")}`;
  const body = Buffer.from(`Keepsake connection test ${new Date().toISOString()}\n`);
  let stage: Stage = "write";
  try {
    await client.put(key, [body], { contentType: "text/plain" });
    stage = "read";
    const back = await client.read(key).catch(async (err: unknown) => {
      await client.remove(key).catch(() => undefined);
      throw err;
    });
    if (!back.equals(body)) {
      await client.remove(key).catch(() => undefined);
      throw new ProviderError("s3", "unknown", "The probe came back changed", {
        code: "probe_mismatch",
      });
    }
    stage = "delete";
    await client.remove(key);
  } catch (err) {
    throw probeFailure(err, stage, s);
  } finally {
    client.close();
  }
}
