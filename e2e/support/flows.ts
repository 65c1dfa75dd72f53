import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { newPage } from "./browser.ts";
import type { RunningKeepsake } from "./keepsake.ts";
import type { SeedOps } from "./seed-ops.ts";
import { runSeed } from "./seeder.ts";

/** What a person does again and again in the end-to-end specs. */

export const toast = (page: Page, text: string | RegExp) =>
  page.locator(".Toastify__toast", { hasText: text });

/** Registers a new user in a fresh browser context; the page is left on the dashboard. */
export async function registerInBrowser(
  browser: Browser,
  ks: RunningKeepsake,
  user: { full_name: string; email: string; password: string },
): Promise<Page> {
  const page = await newPage(browser);
  await page.goto(`${ks.url}/register`);
  await page.locator('input[name="full_name"]').fill(user.full_name);
  await page.locator('input[name="email"]').fill(user.email);
  await page.locator('input[name="password"]').fill(user.password);
  await page.locator('input[name="confirm_password"]').fill(user.password);
  await page.locator('button[type="submit"]').click();
  await page.waitForURL(`${ks.url}/dashboard`);
  return page;
}

let registered = 0;

/** Registers a new user with a unique email (`<prefix>N@example.com`) and lands on the dashboard. */
export async function registerNewUser(
  browser: Browser,
  ks: RunningKeepsake,
  prefix: string,
): Promise<{ page: Page; email: string }> {
  registered += 1;
  const email = `${prefix}${registered}@example.com`;
  const page = await registerInBrowser(browser, ks, {
    full_name: `${prefix[0]!.toUpperCase()}${prefix.slice(1)} ${registered}`,
    email,
    password: "Keeps4ke!pass",
  });
  return { page, email };
}

export async function openSettings(page: Page, ks: RunningKeepsake) {
  const link = page.getByRole("link", { name: "Settings", exact: true }).first();
  const there = `${ks.url}/settings`;
  // A click that lands while the dashboard re-renders (its first data arriving, the sign-up
  // toast) can be lost on a loaded machine: click again, as a person would, at most twice more.
  for (let attempt = 0; attempt < 3 && page.url() !== there; attempt++) {
    await link.click();
    await page.waitForURL(there, { timeout: 8_000 }).catch(() => undefined);
  }
  await page.waitForURL(there);
  // The URL changes at once; the previous screen stays until the Settings chunk has loaded.
  await page.getByRole("tablist", { name: "Settings" }).waitFor();
}

/** On the sandbox's Instagram consent page: choose the account and allow. */
export async function allowInstagram(page: Page, username: string) {
  await page.waitForURL(/\/www\.instagram\.com\/oauth\/authorize/);
  await page.locator("label.acct", { hasText: `@${username}` }).click();
  await page.getByRole("button", { name: "Allow" }).click();
}

/** Settings → Connect Instagram → the sandbox consent page → back on the dashboard. */
export async function connectInstagram(page: Page, ks: RunningKeepsake, username: string) {
  await openSettings(page, ks);
  await page.getByRole("button", { name: "Connect Instagram" }).click();
  await allowInstagram(page, username);
  await page.waitForURL(`${ks.url}/dashboard`);
}

/** On the sandbox's Facebook dialog: choose the person and continue, back on the dashboard. */
export async function allowFacebook(page: Page, ks: RunningKeepsake, name: string) {
  await page.waitForURL(/\/www\.facebook\.com\/v25\.0\/dialog\/oauth/);
  await page.locator("label.acct", { hasText: name }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(`${ks.url}/dashboard`);
}

/** Settings → Connect via Facebook → the sandbox's Facebook dialog → back on the dashboard. */
export async function connectViaFacebook(page: Page, ks: RunningKeepsake, name: string) {
  await openSettings(page, ks);
  await page.getByRole("button", { name: "Connect via Facebook" }).click();
  await allowFacebook(page, ks, name);
}

/** The dashboard's accounts panel: Add Account → Instagram Login, until the account is listed. */
export async function addInstagramAccount(
  page: Page,
  ks: RunningKeepsake,
  username: string,
  wait: { timeout: number; interval: number },
) {
  const panel = page.locator(".accounts-panel");
  await panel.getByRole("button", { name: "Add Account" }).click();
  await panel.getByRole("button", { name: "Instagram Login" }).click();
  await allowInstagram(page, username);
  await page.waitForURL(`${ks.url}/dashboard`);
  await expect
    .poll(() => panel.locator("article", { hasText: `@${username}` }).count(), wait)
    .toBe(1);
}

/** Settings → Connect Google Drive → the notice → the Google consent page, Drive ticked. */
export async function connectDrive(page: Page, ks: RunningKeepsake, email: string) {
  await openSettings(page, ks);
  await page.getByRole("button", { name: "Connect Google Drive" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Continue to Google" }).click();
  await page.waitForURL(/\/accounts\.google\.com\//);
  await page.getByText(email).click();
  await page.locator('input[name="drive_file"]').check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(`${ks.url}/dashboard`);
}

/** The sandbox's control API (sandbox/README.md): GET without a body, POST with one. */
export async function sandboxControl<T = unknown>(
  ks: RunningKeepsake,
  path: string,
  body?: unknown,
  method: string = body === undefined ? "GET" : "POST",
): Promise<T> {
  const res = await fetch(`${ks.sandboxUrl}/_control${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * Runs one typed seed operation (seed-ops.ts) against the running Keepsake's database, in the
 * seeder beside it (seeder.ts); answers what the operation returns.
 */
export async function seed<K extends keyof SeedOps>(
  ks: RunningKeepsake,
  op: K,
  args: Parameters<SeedOps[K]>[1],
): Promise<Awaited<ReturnType<SeedOps[K]>>> {
  if (!ks.seeder) throw new Error("seed() needs a shared Keepsake, which has a seeder");
  return (await runSeed(ks.seeder, op, args)) as Awaited<ReturnType<SeedOps[K]>>;
}
