import { CONTACT_SUCCESS } from "@keepsake/contracts";
import { act, fireEvent, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { api } from "../src/api/client.ts";
import { Toasts } from "../src/app.tsx";
import { annualSavingPercent, plans } from "../src/lib/plans.ts";
import { ContactPage } from "../src/pages/contact/contact-page.tsx";
import { heroCta } from "../src/pages/landing/hero-cta.ts";
import { PricingPage } from "../src/pages/pricing/pricing-page.tsx";
import { overallStatus, services } from "../src/pages/status/status-data.ts";
import { StatusPage } from "../src/pages/status/status-page.tsx";
import { type FakeRequest, fakeAdapter } from "./fake-api.ts";
import { makeAuth, makeUser, renderWithAuth } from "./helpers.tsx";

describe("pricing", () => {
  it("computes the annual saving per plan (17% for every paid plan)", () => {
    expect(plans.map((p) => [p.tier, annualSavingPercent(p)])).toEqual([
      ["free", 0],
      ["premium", 17],
      ["pro", 17],
      ["agency", 17],
    ]);
    expect(annualSavingPercent({ monthly: 10, annual: 60 })).toBe(50);
  });

  it("switches between monthly and annual prices and labels premium 'Most Popular'", async () => {
    const user = userEvent.setup();
    renderWithAuth(<PricingPage />, { path: "/pricing" });
    expect(screen.getByText("Most Popular")).toBeTruthy();
    expect(screen.getByText("$9.99")).toBeTruthy();
    expect(screen.queryByText("$99.99")).toBeNull();
    await user.click(screen.getByRole("radio", { name: /Annual/ }));
    expect(screen.getByText("$99.99")).toBeTruthy();
    expect(screen.getByText("$549.99")).toBeTruthy();
    expect(screen.queryByText("$9.99")).toBeNull();
    expect(screen.getByText("Do you offer refunds?")).toBeTruthy();
    expect(screen.getAllByText(/30-day money-back guarantee/)).toHaveLength(2);
  });

  it("sends visitors to /register and marks a user's current plan", () => {
    renderWithAuth(<PricingPage />, { path: "/pricing" });
    expect(screen.getByRole("link", { name: "Get Premium" }).getAttribute("href")).toBe(
      "/register",
    );
  });

  it("marks the signed-in user's current plan", () => {
    renderWithAuth(<PricingPage />, {
      path: "/pricing",
      auth: makeAuth({ user: makeUser({ subscription_tier: "pro" }) }),
    });
    expect(screen.getByTestId("current-plan").textContent).toContain("Pro");
    expect(screen.getByRole("button", { name: "Current Plan" })).toBeTruthy();
  });
});

describe("status", () => {
  it("is operational only when every service is", () => {
    expect(overallStatus(services).label).toBe("All Systems Operational");
    expect(overallStatus([{ status: "operational" }, { status: "degraded" }]).label).toBe(
      "Some Systems Degraded",
    );
    expect(overallStatus([{ status: "down" }]).operational).toBe(false);
  });

  it("shows the banner, the services and the incident", () => {
    renderWithAuth(<StatusPage />, { path: "/status" });
    expect(screen.getByText("All Systems Operational")).toBeTruthy();
    expect(screen.getAllByText(/uptime$/)).toHaveLength(5);
    expect(screen.getByText(/Duration: 2 hours/)).toBeTruthy();
  });

  it("shows the degraded banner and 'No recent incidents'", () => {
    renderWithAuth(
      <StatusPage services={[{ name: "API", status: "degraded", uptime: "98%" }]} incidents={[]} />,
      { path: "/status" },
    );
    expect(screen.getByText("Some Systems Degraded")).toBeTruthy();
    expect(screen.getByText("No recent incidents")).toBeTruthy();
  });
});

describe("landing main button", () => {
  it("follows the three states of SPEC §2", () => {
    expect(heroCta(null, undefined)).toEqual({ label: "Start Backing Up Free", to: "/register" });
    const user = makeUser();
    expect(heroCta(user, undefined).to).toBe("/settings");
    expect(heroCta(user, { instagram_connected: true, google_connected: false })).toEqual({
      label: "Connect Your Accounts",
      to: "/settings",
    });
    expect(heroCta(user, { instagram_connected: true, google_connected: true })).toEqual({
      label: "Go to Dashboard",
      to: "/dashboard",
    });
  });
});

describe("contact form", () => {
  const originalAdapter = api.defaults.adapter;
  afterEach(() => {
    api.defaults.adapter = originalAdapter;
  });

  const fields: [string, string][] = [
    ["Name", "Jane"],
    ["Email", "jane@example.com"],
    ["Subject", "Hello"],
    ["Message", "A question"],
  ];

  async function fillAndSend(reply: () => Promise<[number, unknown]>) {
    const calls: FakeRequest[] = [];
    api.defaults.adapter = fakeAdapter(() => reply(), calls);
    renderWithAuth(
      <>
        <ContactPage />
        <Toasts />
      </>,
      { path: "/contact" },
    );
    for (const [label, value] of fields) {
      fireEvent.change(screen.getByLabelText(label), { target: { value } });
    }
    fireEvent.submit(screen.getByRole("button", { name: "Send Message" }));
    return calls;
  }

  it("posts the message, shows 'Sending...', then toasts and clears the fields", async () => {
    let answer: (v: [number, unknown]) => void = () => {};
    const calls = await fillAndSend(() => new Promise((r) => (answer = r)));
    const busy = await screen.findByRole("button", { name: "Sending..." });
    expect((busy as HTMLButtonElement).disabled).toBe(true);
    await act(async () => answer([201, { id: "m1" }]));
    expect(await screen.findByText(CONTACT_SUCCESS)).toBeTruthy();
    expect(calls).toEqual([
      {
        method: "POST",
        path: "/contact",
        params: {},
        body: { name: "Jane", email: "jane@example.com", subject: "Hello", message: "A question" },
      },
    ]);
    for (const [label] of fields) {
      expect((screen.getByLabelText(label) as HTMLInputElement).value).toBe("");
    }
  });

  it("toasts a failure and keeps what was typed", async () => {
    await fillAndSend(async () => [429, { detail: "Too many messages from your network." }]);
    expect(await screen.findByText("Too many messages from your network.")).toBeTruthy();
    for (const [label, value] of fields) {
      expect((screen.getByLabelText(label) as HTMLInputElement).value).toBe(value);
    }
    expect(screen.getByRole("button", { name: "Send Message" })).toBeTruthy();
  });
});
