import { DEMO_DROPBOX } from "@keepsake/sandbox";
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
