import type { Browser } from "playwright-core";
import { describe, expect, it } from "vitest";
import { connectInstagram, registerNewUser } from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const WAIT = { timeout: 30_000, interval: 250 };

describe("what Meta tells Keepsake", () => {
  it("a creator removes Keepsake in Instagram's settings, then asks for deletion: told, then erased with a status page", async () => {
    const { page } = await registerNewUser(browser, ks, "meta-signals");
    await connectInstagram(page, ks, "lumen.studio");

    // The demo person's "Apps and websites" in the sandbox: remove Keepsake.
    await page.goto(`${ks.sandboxUrl}/apps`);
    const person = page.locator("li", { hasText: "@lumen.studio" });
    await person.getByRole("button", { name: "Remove Keepsake", exact: true }).click();
    await page.getByRole("heading", { name: "Keepsake removed" }).waitFor();

    // Keepsake heard it: the bell tells the user, with the way back.
    await page.goto(`${ks.url}/dashboard`);
    await expect.poll(() => page.getByTestId("notification-count").textContent(), WAIT).toBe("1");
    await page.getByTestId("notification-bell").click();
    const item = page.getByTestId("notification-item").first();
    await expect
      .poll(() => item.textContent(), WAIT)
      .toContain("You removed Keepsake in Instagram's settings");

    // Then the person asks Meta for their data to be deleted.
    await page.goto(`${ks.sandboxUrl}/apps`);
    await page
      .locator("li", { hasText: "@lumen.studio" })
      .getByRole("button", { name: "Remove Keepsake and delete my data" })
      .click();
    const answer = JSON.parse((await page.locator("pre").textContent()) ?? "{}");
    const { url, confirmation_code: code } = answer.data_deletion.body as {
      url: string;
      confirmation_code: string;
    };
    expect(url).toBe(`${ks.url}/data-deletion?code=${code}`);

    // The status URL Meta shows the person.
    await page.goto(url);
    await page.getByText(`Confirmation code ${code}`).waitFor();
    await page.getByText("Keepsake erased its records of 1 account").waitFor();
    // The account is gone from Keepsake.
    await page.goto(`${ks.url}/settings`);
    await expect.poll(() => page.getByText("@lumen.studio").count(), WAIT).toBe(0);
  });
});
