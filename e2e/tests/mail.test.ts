import { accountMessages } from "@keepsake/contracts";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newPage } from "../support/browser.ts";
import { registerNewUser, seed } from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

interface Mail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/** Waits for a mail to `to` whose subject matches in the sandbox's inbox (its SMTP server). */
async function mailFor(to: string, subject: RegExp, timeoutMs = 30_000): Promise<Mail> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(`${ks.sandboxUrl}/_control/mail?to=${encodeURIComponent(to)}`);
    const found = ((await res.json()) as Mail[]).find((m) => subject.test(m.subject));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 250));
  }
  // What Keepsake said meanwhile (warnings and errors), to tell a late sampler from a lost mail.
  const said = ks.output().trim().split("\n").slice(-40).join("\n");
  throw new Error(
    `no mail "${subject}" for ${to} in ${timeoutMs} ms; Keepsake's log ends:\n${said}`,
  );
}

/** Every mail to `to` whose subject matches, as the sandbox's inbox holds them now. */
async function mailsTo(to: string, subject: RegExp): Promise<Mail[]> {
  const res = await fetch(`${ks.sandboxUrl}/_control/mail?to=${encodeURIComponent(to)}`);
  return ((await res.json()) as Mail[]).filter((m) => subject.test(m.subject));
}

const linkIn = (mail: Mail, path: string) => {
  const m = new RegExp(`(https?://[^\\s"<>]+${path}\\?token=[\\w-]+)`).exec(mail.text);
  if (!m) throw new Error(`no ${path} link in ${mail.text}`);
  return m[1]!;
};

async function signedIn(page: Page) {
  await page.goto(`${ks.url}/dashboard`);
  return page.url().endsWith("/dashboard");
}

describe("mail in the browser", () => {
  it("forgot password: the mail in the sandbox inbox, its link, a new password, the old session refused", async () => {
    const { page: oldSession, email } = await registerNewUser(browser, ks, "forgetful");
    const page = await newPage(browser);
    await page.goto(`${ks.url}/login`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.waitForURL(`${ks.url}/forgot-password`);
    // The URL changes at once; the page's chunk may still be loading.
    await page.getByRole("heading", { name: "Forgot your password?" }).waitFor();
    await page.locator('input[name="email"]').fill(email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByText("If an account exists for that address").waitFor();

    const mail = await mailFor(email, /Reset your Keepsake password/);
    expect(mail.html).toContain("Choose a new password");
    await page.goto(linkIn(mail, "/reset-password"));
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await page.locator('input[name="password"]').fill("N3wSecret!pass");
    await page.locator('input[name="confirm_password"]').fill("N3wSecret!pass");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByText("Your password has been reset.").waitFor();

    // The session that was open before is refused: its next screen is the sign-in page.
    await oldSession.goto(`${ks.url}/dashboard`);
    await oldSession.waitForURL(`${ks.url}/login`);
    // The new password signs in.
    await page.goto(`${ks.url}/login`);
    await page.getByRole("heading", { name: "Welcome back" }).waitFor();
    await page.locator('input[name="email"]').fill(email);
    await page.locator('input[name="password"]').fill("N3wSecret!pass");
    await page.getByRole("button", { name: "Sign In" }).click();
    await page.waitForURL(`${ks.url}/dashboard`);
    expect(await signedIn(page)).toBe(true);
  });

  it("registering a taken address: the form says where to go, the owner gets a mail, nothing changes", async () => {
    const { email } = await registerNewUser(browser, ks, "taken");
    const page = await newPage(browser);
    await page.goto(`${ks.url}/register`);
    await page.locator('input[name="full_name"]').fill("Someone Else");
    await page.locator('input[name="email"]').fill(email.toUpperCase());
    await page.locator('input[name="password"]').fill("Other0ne!pass");
    await page.locator('input[name="confirm_password"]').fill("Other0ne!pass");
    await page.locator('button[type="submit"]').click();
    await page.getByText(accountMessages.registerSignInFailed).waitFor();
    expect(page.url()).toBe(`${ks.url}/register`);
    const mail = await mailFor(email, /^Someone tried to sign up with your address$/);
    expect(mail.text).toContain("/forgot-password");
    expect(mail.text).not.toContain("Someone Else");
  });

  it("the verify-address banner: resend, open the link, the banner is gone", async () => {
    const { page, email } = await registerNewUser(browser, ks, "unverified");
    const banner = page.getByRole("region", { name: "Verify your e-mail address" });
    await banner.waitFor();
    expect(await banner.textContent()).toContain(email);
    await banner.getByRole("button", { name: "Resend link" }).click();
    await banner.getByText("We've sent you a new verification link.").waitFor();
    const mail = await mailFor(email, /Verify your e-mail address/);
    await page.goto(linkIn(mail, "/verify-email"));
    await page.getByText("Your e-mail address is verified.").waitFor();
    await page.goto(`${ks.url}/dashboard`);
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    expect(await banner.count()).toBe(0);
  });

  it("status updates: subscribe, only a confirmation mail, confirm in the browser, then a mail when an incident opens and when it resolves", async () => {
    const page = await newPage(browser);
    const email = "watcher.e2e@example.com";
    await page.goto(`${ks.url}/status`);
    await page.locator("#status-email").fill(email);
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page
      .getByRole("status")
      .getByText(`we've sent a confirmation link to ${email}`)
      .waitFor();
    const mail = await mailFor(email, /Confirm your Keepsake status subscription/);
    await page.goto(linkIn(mail, "/status/confirm"));
    await page.getByText(`${email} will now receive Keepsake status updates.`).waitFor();

    // Drive has been failing for 6 minutes (over the 5 the status page waits): the worker's
    // next status sample opens an incident and the confirmed subscriber is told, once; when
    // Drive answers again, the next sample resolves it and tells them that too. (The samples
    // are sent now rather than awaited at the next whole minute.)
    // The minute's scheduled sample runs beside these: should it have judged Drive from before
    // the trouble (no incident then), the trouble and the sample are sent again, at most twice.
    // A mail lost after its incident opened is not retried: the incident stays told or open.
    let opened: Mail | null = null;
    for (let attempt = 1; !opened; attempt++) {
      await seed(ks, "driveTrouble", { minutes: 6 });
      await seed(ks, "statusSample", {});
      try {
        opened = await mailFor(email, /^Incident: Google Drive API degraded/, 15_000);
      } catch (err) {
        const rows = JSON.stringify(await seed(ks, "statusRows", {}));
        if (attempt === 3)
          throw new Error(`${(err as Error).message}
status rows: ${rows}`);
        console.error(`attempt ${attempt}: no incident mail yet; status rows: ${rows}`);
      }
    }
    expect(opened.headers["list-unsubscribe"]).toMatch(/\/api\/mail\/unsubscribe\?token=/);
    await page.goto(`${ks.url}/status`);
    await page.getByText("Google Drive API degraded").first().waitFor();
    await seed(ks, "driveTrouble", { minutes: 0 });
    await seed(ks, "statusSample", {});
    await mailFor(email, /^Resolved: Google Drive API degraded/);
    expect(await mailsTo(email, /^Incident: /)).toHaveLength(1);
  }, 300_000);
});
