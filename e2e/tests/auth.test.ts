import { messages } from "@keepsake/contracts";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newPage, offsiteRequests } from "../support/browser.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const person = { name: "Frida Kahlo", email: "frida@example.com", password: "Casa4zul" };

async function alerts(page: Page) {
  return (await page.getByRole("alert").allTextContents()).map((s) => s.trim());
}

async function fillRegister(page: Page, v: Partial<Record<string, string>>) {
  for (const [name, value] of Object.entries(v)) {
    await page.locator(`input[name="${name}"]`).fill(value ?? "");
  }
}

describe("accounts in the browser", () => {
  it("shows every registration validation message, then registers", async () => {
    const page = await newPage(browser);
    await page.goto(`${ks.url}/register`);
    await page.locator('button[type="submit"]').click();
    expect(await alerts(page)).toEqual(
      expect.arrayContaining([
        messages.fullNameRequired,
        messages.emailRequired,
        messages.passwordRequired,
        messages.confirmRequired,
      ]),
    );
    await fillRegister(page, {
      full_name: "F",
      email: "frida@",
      password: "short",
      confirm_password: "x",
    });
    await expect
      .poll(() => alerts(page))
      .toEqual(
        expect.arrayContaining([
          messages.fullNameShort,
          messages.emailInvalid,
          messages.passwordShortRegister,
        ]),
      );
    await fillRegister(page, { password: "alllowercase1" });
    await expect.poll(() => alerts(page)).toContain(messages.passwordWeak);
    await fillRegister(page, { password: person.password, confirm_password: "Different1" });
    await expect.poll(() => alerts(page)).toContain(messages.passwordsDiffer);

    await fillRegister(page, {
      full_name: person.name,
      email: person.email,
      password: person.password,
      confirm_password: person.password,
    });
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(`${ks.url}/dashboard`);
    await expect.poll(() => page.getByText("Account created successfully!").count()).toBe(1);
    // The avatar shows the first letter of the full name.
    await expect.poll(() => page.getByText("F", { exact: true }).count()).toBeGreaterThan(0);
    expect(offsiteRequests(page)).toEqual([]);
    await page.context().close();
  });

  it("logs out and logs back in", async () => {
    const page = await newPage(browser);
    await page.goto(`${ks.url}/login`);
    await page.locator('input[name="email"]').fill(person.email);
    await page.locator('input[name="password"]').fill("WrongPassword1");
    await page.locator('button[type="submit"]').click();
    await expect
      .poll(() => page.getByText("Incorrect email or password").count())
      .toBeGreaterThan(0);

    await page.locator('input[name="password"]').fill(person.password);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(`${ks.url}/dashboard`);
    await expect.poll(() => page.getByText("Welcome back!").count()).toBe(1);

    await page
      .getByRole("button", { name: /log ?out|sign out/i })
      .first()
      .click();
    await expect.poll(() => page.getByText("Logged out successfully").count()).toBe(1);
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
    await page.context().close();
  });

  it("sends a visitor from a protected route to /login and back after signing in", async () => {
    const page = await newPage(browser);
    await page.goto(`${ks.url}/backups`);
    await page.waitForURL(`${ks.url}/login`);
    await page.locator('input[name="email"]').fill(person.email);
    await page.locator('input[name="password"]').fill(person.password);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(`${ks.url}/backups`);
    await page.context().close();
  });

  it("replaces an unknown path with /", async () => {
    const page = await newPage(browser);
    await page.goto(`${ks.url}/no/such/page`);
    await page.waitForURL(`${ks.url}/`);
    await expect
      .poll(() => page.getByRole("link", { name: "Start Backing Up Free" }).count())
      .toBeGreaterThan(0);
    await page.context().close();
  });

  it("a 401 from the API clears the session and goes to /login", async () => {
    const page = await newPage(browser);
    await page.goto(`${ks.url}/login`);
    await page.locator('input[name="email"]').fill(person.email);
    await page.locator('input[name="password"]').fill(person.password);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(`${ks.url}/dashboard`);
    // End the session on the server behind the page's back, then navigate.
    const token = await page.evaluate(() => {
      for (const k of Object.keys(localStorage)) {
        const v = localStorage.getItem(k) ?? "";
        if (v.split(".").length === 3) return v.replace(/^"|"$/g, "");
      }
      return null;
    });
    expect(token).toBeTruthy();
    const out = await fetch(`${ks.url}/api/auth/logout`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(out.status).toBe(204);
    // The next API call answers 401: the dashboard's own polling, or the Settings screen's
    // calls after a client-side navigation, whichever comes first. No reload is involved.
    if (new URL(page.url()).pathname !== "/login") {
      await page
        .getByRole("link", { name: "Settings" })
        .first()
        .click({ timeout: 3000 })
        .catch(() => {});
    }
    // Polled rather than awaited as one navigation: the app may start it from any of the
    // failing calls, and what counts is where the browser ends.
    await expect.poll(() => new URL(page.url()).pathname).toBe("/login");
    await page.locator('input[name="email"]').waitFor();
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
    await page.context().close();
  });
});
