import { adminDeleteConfirmation, adminMessages, CONTACT_SUCCESS } from "@keepsake/contracts";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newPage } from "../support/browser.ts";
import { registerNewUser, seed, toast } from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const PASSWORD = "Keeps4ke!pass";

async function registerByApi(email: string) {
  const res = await fetch(`${ks.url}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ full_name: "Target Person", email, password: PASSWORD }),
  });
  expect(res.status).toBe(201);
}

async function loginInBrowser(email: string): Promise<Page> {
  const page = await newPage(browser);
  await page.goto(`${ks.url}/login`);
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.locator('button[type="submit"]').click();
  return page;
}

/** Registers a user in the browser, makes them an admin and opens /admin. */
async function adminInBrowser(prefix: string): Promise<Page> {
  const { page, email } = await registerNewUser(browser, ks, prefix);
  await seed(ks, "setUser", { email, isAdmin: true });
  await page.reload();
  await page.getByRole("link", { name: "Admin" }).first().click();
  await page.waitForURL(`${ks.url}/admin`);
  return page;
}

const row = (page: Page, email: string) => page.locator("tr", { hasText: email });

describe("the admin area in the browser", () => {
  it("sends a non-admin from /admin to /dashboard with the toast", async () => {
    const { page } = await registerNewUser(browser, ks, "visitor");
    await page.goto(`${ks.url}/admin`);
    await page.waitForURL(`${ks.url}/dashboard`);
    await expect
      .poll(() => toast(page, "Access denied. Admin privileges required.").count())
      .toBe(1);
    await page.context().close();
  });

  it("deactivates a user who is then refused at login, toggles admin, deletes after the confirmation", async () => {
    const target = "target.person@example.com";
    await registerByApi(target);
    const page = await adminInBrowser("chief");
    await expect.poll(() => page.locator("h1").textContent()).toBe("Admin Dashboard");
    await page.getByLabel("Search users").fill("target.person");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    const r = row(page, target);
    await expect.poll(() => r.textContent()).toContain("Target Person");

    await r.getByRole("button", { name: "Deactivate" }).click();
    await expect.poll(() => toast(page, `Active status toggled for ${target}`).count()).toBe(1);
    await expect.poll(() => r.getByText("Inactive").count()).toBe(1);
    const refused = await loginInBrowser(target);
    await expect
      .poll(() => refused.locator("#login-error").textContent())
      .toBe(adminMessages.deactivatedLogin);
    expect(new URL(refused.url()).pathname).toBe("/login");
    await refused.context().close();

    await r.getByRole("button", { name: "Activate" }).click();
    await expect.poll(() => r.getByText("Active", { exact: true }).count()).toBe(1);
    await r.getByRole("button", { name: "Make Admin" }).click();
    await expect.poll(() => toast(page, `Admin status toggled for ${target}`).count()).toBe(1);
    await expect.poll(() => r.getByRole("button", { name: "Remove Admin" }).count()).toBe(1);

    await r.getByRole("button", { name: `Delete ${target}` }).click();
    const dialog = page.getByRole("dialog");
    await expect.poll(() => dialog.textContent()).toContain(adminDeleteConfirmation(target));
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await row(page, target).count()).toBe(1);
    await r.getByRole("button", { name: `Delete ${target}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await expect.poll(() => toast(page, `User ${target} deleted successfully`).count()).toBe(1);
    await expect.poll(() => page.getByText("No users found").count()).toBe(1);
    const gone = await fetch(`${ks.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: target, password: PASSWORD }),
    });
    expect(gone.status).toBe(401);
    await page.context().close();
  });

  it("offers an admin no action on their own row, and says why", async () => {
    const page = await adminInBrowser("selfish");
    const me = page.locator("tr", { hasText: "selfish" });
    await page.getByLabel("Search users").fill("selfish");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    await expect.poll(() => me.textContent()).toContain("This is your account");
    expect(await me.getByRole("button").count()).toBe(0);
    await page.context().close();
  });

  it("lets a user delete their own account from Settings → Profile with the password", async () => {
    const { page, email } = await registerNewUser(browser, ks, "leaver");
    await page.goto(`${ks.url}/settings?tab=profile`);
    await page.getByRole("button", { name: "Delete my account" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Password", { exact: true }).fill("WrongPass1");
    await dialog.getByRole("button", { name: "Delete my account" }).click();
    await expect
      .poll(() => dialog.getByRole("alert").textContent())
      .toBe(adminMessages.wrongPassword);
    // Every address the tab shows from here on, client-side navigations included.
    const visited: string[] = [];
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname);
    });
    await dialog.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await dialog.getByRole("button", { name: "Delete my account" }).click();
    // The home page for a visitor, with the confirmation; never the sign-in form on the way.
    await expect.poll(() => toast(page, "Your account has been deleted").count()).toBe(1);
    await page.getByRole("link", { name: "Start Backing Up Free" }).first().waitFor();
    expect(new URL(page.url()).pathname).toBe("/");
    expect(visited).not.toContain("/login");
    expect(await page.locator('input[name="password"]').count()).toBe(0);
    const login = await fetch(`${ks.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(login.status).toBe(401);
    await page.context().close();
  });

  it("a message sent from /contact appears in the admin inbox and can be marked handled", async () => {
    const visitor = await newPage(browser);
    await visitor.goto(`${ks.url}/contact`);
    await visitor.getByLabel("Name").fill("Visiting Vera");
    await visitor.getByLabel("Email").fill("vera@example.com");
    await visitor.getByLabel("Subject").fill("Press enquiry about Keepsake");
    await visitor.getByLabel("Message").fill("Could you send me the press kit?\nThanks!");
    await visitor.getByRole("button", { name: "Send Message" }).click();
    await expect.poll(() => toast(visitor, CONTACT_SUCCESS).count()).toBe(1);
    expect(await visitor.getByLabel("Subject").inputValue()).toBe("");
    await visitor.context().close();

    const page = await adminInBrowser("inboxer");
    await page.getByRole("tab", { name: "Inbox" }).click();
    const item = page.locator(".inbox-item", { hasText: "Press enquiry about Keepsake" });
    await expect.poll(() => item.textContent()).toContain("vera@example.com");
    expect(await item.getByText("New").count()).toBe(1);
    await item.getByRole("button", { name: /Press enquiry about Keepsake/ }).click();
    await expect.poll(() => item.textContent()).toContain("Could you send me the press kit?");
    await item.getByRole("button", { name: "Mark as handled" }).click();
    await expect.poll(() => item.getByText("Handled", { exact: true }).count()).toBe(1);
    await page.context().close();
  });
});
