import type { StatusResponse } from "@keepsake/contracts";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, newPage } from "../support/browser.ts";
import {
  connectDrive,
  connectInstagram,
  registerInBrowser,
  sandboxControl,
  toast,
} from "../support/flows.ts";
import { type RunningKeepsake, startKeepsake } from "../support/keepsake.ts";

let ks: RunningKeepsake;
let browser: Browser;
beforeAll(async () => {
  [ks, browser] = await Promise.all([startKeepsake(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await ks?.dispose();
});

const WAIT = { timeout: 60_000, interval: 500 };

async function status(): Promise<StatusResponse> {
  return (await (await fetch(`${ks.url}/api/status`)).json()) as StatusResponse;
}

describe("/status from live health data", () => {
  it("shows every component operational, then Google Drive degraded while the sandbox injects Drive errors", async () => {
    const page = await newPage(browser);
    await page.goto(`${ks.url}/status`);
    await expect.poll(() => page.locator("[data-component]").count(), WAIT).toBe(5);
    // The worker reports at start, so background jobs are up from the first minute.
    await expect
      .poll(async () => (await page.locator('[data-component="jobs"]').textContent()) ?? "")
      .toContain("Operational");
    expect(await page.getByText("No recent incidents").count()).toBe(1);

    const user = await registerInBrowser(browser, ks, {
      full_name: "Status Tester",
      email: "status.tester@example.com",
      password: "Status5!xy",
    });
    await connectInstagram(user, ks, "maya.creates");
    await connectDrive(user, ks, "maya.chen@example.com");
    await sandboxControl(ks, "/faults", {
      endpoint: "drive.upload",
      error: "drive:backendError",
      count: 10,
    });
    await user.getByRole("button", { name: "Start Backup" }).click();
    await expect
      .poll(async () => (await status()).components.find((c) => c.id === "google")?.status, WAIT)
      .toBe("degraded");

    await page.getByRole("button", { name: "Refresh" }).click();
    const drive = page.locator('[data-component="google"]');
    await expect.poll(() => drive.textContent(), WAIT).toContain("Degraded");
    expect(await drive.textContent()).toMatch(/\d+ of \d+ calls failed in the last 15 minutes/);
    expect(await page.getByText("Some Systems Degraded").count()).toBe(1);

    await page.locator("#status-email").fill("Watcher@Example.com");
    await page.getByRole("button", { name: "Subscribe" }).click();
    await expect
      .poll(() => toast(page, "watcher@example.com is subscribed to status updates.").count())
      .toBe(1);
    await user.context().close();
    await page.context().close();
  });
});
