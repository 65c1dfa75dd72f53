import { DEMO_DROPBOX, DEMO_ONEDRIVE, SANDBOX_CREDENTIALS } from "@keepsake/sandbox";
import { expect } from "vitest";
import type { SandboxedApp } from "./sandbox.ts";

/**
 * Connects the sandbox's Dropbox (the demo account) as a person would: Keepsake's authorization
 * URL, the consent page answered "allow", back through Keepsake's callback.
 */
export async function connectDropbox(
  t: SandboxedApp,
  token: string,
  accountId: string = DEMO_DROPBOX.jordan.accountId,
) {
  const res = await t.call("GET", "/api/oauth/dropbox/auth-url", { token });
  expect(res.status).toBe(200);
  const page = new URL(res.body.authorization_url);
  const submitted = await fetch(`${page.origin}${page.pathname}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      ...Object.fromEntries(page.searchParams),
      decision: "allow",
      account: accountId,
    }).toString(),
    redirect: "manual",
  });
  expect(submitted.status).toBe(302);
  await t.land(new URL(submitted.headers.get("location") as string));
}

/** Points one of the user's accounts at a destination (its history is copied there). */
export async function chooseDestination(
  t: SandboxedApp,
  token: string,
  accountId: string,
  destination: string,
) {
  return t.call("PUT", `/api/oauth/instagram/accounts/${accountId}/destination`, {
    token,
    body: { destination },
  });
}

/**
 * Connects `kind` for the user (Google Drive as the sandbox's Jordan when it is not yet) and
 * points each of `accountIds` at it. Google Drive stays connected for the other kinds: nothing
 * is written there, but the piped reference copy of `bench:backup` uses its token.
 */
export async function connectDestination(
  t: SandboxedApp,
  token: string,
  kind: "dropbox" | "onedrive" | "s3" | "google_drive",
  accountIds: string[],
) {
  if (kind === "dropbox" || kind === "onedrive") {
    const res = await t.call("GET", `/api/oauth/${kind}/auth-url`, { token });
    if (res.status !== 200) throw new Error(`${kind} auth URL answered ${res.status}`);
    const page = new URL(res.body.authorization_url);
    const account = kind === "dropbox" ? DEMO_DROPBOX.jordan.accountId : DEMO_ONEDRIVE.jordan.id;
    const back = await t.consent(`${page.origin}${page.pathname}`, {
      ...Object.fromEntries(page.searchParams),
      decision: "allow",
      account,
    });
    await t.land(back);
  } else if (kind === "s3") {
    const res = await t.call("POST", "/api/destinations/s3", {
      token,
      body: {
        endpoint: t.sandbox.urls.s3,
        region: SANDBOX_CREDENTIALS.s3.region,
        bucket: SANDBOX_CREDENTIALS.s3.bucket,
        prefix: "",
        access_key_id: SANDBOX_CREDENTIALS.s3.accessKeyId,
        secret_access_key: SANDBOX_CREDENTIALS.s3.secretAccessKey,
      },
    });
    if (res.status !== 200) throw new Error(`saving S3 answered ${res.status}: ${res.body.detail}`);
  }
  for (const id of accountIds) {
    const res = await t.call("PUT", `/api/oauth/instagram/accounts/${id}/destination`, {
      token,
      body: { destination: kind },
    });
    if (res.status !== 200) throw new Error(`switching to ${kind} answered ${res.status}`);
  }
}
