import { CONTACT_SUCCESS } from "@keepsake/contracts";
import { act, fireEvent, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Toasts } from "../src/app.tsx";
import { annualSavingPercent, plans } from "../src/lib/plans.ts";
import { ContactPage } from "../src/pages/contact/contact-page.tsx";
import { faqs, searchFaqs } from "../src/pages/help/help-page.tsx";
import { heroCta } from "../src/pages/landing/hero-cta.ts";
import { PricingPage } from "../src/pages/pricing/pricing-page.tsx";
import { bannerOf, groupComponents } from "../src/pages/status/status-data.ts";
import { StatusPage } from "../src/pages/status/status-page.tsx";
import { type FakeRequest, fakeFetch } from "./fake-api.ts";
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
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  const component = (id: string, status: string, uptime: number | null) => ({
    id,
    name: `${id} name`,
    status,
    detail: `${id} detail`,
    uptime,
  });
  const answer = (components: unknown[], incidents: unknown[]) => ({
    status: "operational",
    checked_at: "2026-05-01T12:00:00.000Z",
    components,
    incidents,
  });

  it("is operational only when every component is", () => {
    expect(bannerOf([{ status: "operational" }]).label).toBe("All Systems Operational");
    expect(bannerOf([{ status: "operational" }, { status: "degraded" }]).label).toBe(
      "Some Systems Degraded",
    );
    expect(bannerOf([{ status: "down" }]).operational).toBe(false);
  });

  it("shows GET /api/status, and Refresh fetches it again", async () => {
    let degraded = false;
    const calls: FakeRequest[] = [];
    vi.stubGlobal(
      "fetch",
      fakeFetch(
        () => [
          200,
          answer(
            [
              component("api", "operational", 99.5),
              component("google", degraded ? "degraded" : "operational", null),
            ],
            degraded
              ? [
                  {
                    id: "i1",
                    component: "google",
                    date: "2026-05-01T11:00:00.000Z",
                    title: "Google Drive API degraded",
                    description: "4 of 10 calls failed.",
                    status: "ongoing",
                    duration: "6 minutes",
                  },
                ]
              : [],
          ),
        ],
        calls,
      ),
    );
    renderWithAuth(<StatusPage />, { path: "/status" });
    expect(await screen.findByText("All Systems Operational")).toBeTruthy();
    expect(screen.getByText("99.5% uptime (90 days)")).toBeTruthy();
    expect(screen.getByText("No uptime data yet")).toBeTruthy();
    expect(screen.getByText("No recent incidents")).toBeTruthy();
    degraded = true;
    fireEvent.click(screen.getByRole("button", { name: /Refresh/ }));
    expect(await screen.findByText("Some Systems Degraded")).toBeTruthy();
    expect(screen.getByText("Google Drive API degraded")).toBeTruthy();
    expect(screen.getByText(/Duration: 6 minutes/)).toBeTruthy();
    expect(calls.filter((c) => c.path === "/status")).toHaveLength(2);
  });

  it("lists the backup destinations apart, each with its state; the banner counts them", async () => {
    const destination = (id: string, name: string, kind: string, status: string) => ({
      ...component(id, status, 100),
      name,
      destination: kind,
    });
    vi.stubGlobal(
      "fetch",
      fakeFetch(() => [
        200,
        answer(
          [
            component("api", "operational", 99.5),
            destination("google", "Google Drive API", "google_drive", "operational"),
            destination("dropbox", "Dropbox API", "dropbox", "degraded"),
            destination("s3", "S3 storage", "s3", "operational"),
          ],
          [],
        ),
      ]),
    );
    renderWithAuth(<StatusPage />, { path: "/status" });
    expect(await screen.findByText("Some Systems Degraded")).toBeTruthy();
    const services = screen.getAllByRole("list")[0]!;
    expect(
      [...services.querySelectorAll("[data-component]")].map((r) =>
        r.getAttribute("data-component"),
      ),
    ).toEqual(["api"]);
    const destinations = screen.getByRole("list", { name: "Backup destinations" });
    expect(
      [...destinations.querySelectorAll("[data-component]")].map((r) => r.textContent),
    ).toEqual([
      expect.stringMatching(/^Google Drive API.*Operational$/),
      expect.stringMatching(/^Dropbox API.*Degraded$/),
      expect.stringMatching(/^S3 storage.*Operational$/),
    ]);
    expect(screen.queryByText("Microsoft Graph (OneDrive)")).toBeNull();
  });

  it("groups services and destinations; an answer without destinations lists every service", () => {
    const list: { id: string; destination?: string }[] = [
      { id: "api" },
      { id: "google", destination: "google_drive" },
      { id: "jobs" },
      { id: "microsoft", destination: "onedrive" },
    ];
    expect(groupComponents(list)).toEqual({
      services: [{ id: "api" }, { id: "jobs" }],
      destinations: [
        { id: "google", destination: "google_drive" },
        { id: "microsoft", destination: "onedrive" },
      ],
    });
    const older: { id: string; destination?: string }[] = [{ id: "api" }, { id: "google" }];
    expect(groupComponents(older)).toEqual({ services: older, destinations: [] });
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
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  const fields: [string, string][] = [
    ["Name", "Jane"],
    ["Email", "jane@example.com"],
    ["Subject", "Hello"],
    ["Message", "A question"],
  ];

  async function fillAndSend(reply: () => Promise<[number, unknown]>) {
    const calls: FakeRequest[] = [];
    vi.stubGlobal(
      "fetch",
      fakeFetch(() => reply(), calls),
    );
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
    expect(calls.filter((c) => c.method === "POST")).toEqual([
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

describe("help search", () => {
  it("keeps the entries containing every word, in any case", () => {
    expect(searchFaqs(faqs, "").length).toBe(6);
    expect(searchFaqs(faqs, "OFTEN backed").map((f) => f.q)).toEqual([
      "How often are my posts backed up?",
    ]);
    expect(searchFaqs(faqs, "often quantum")).toEqual([]);
  });

  it("answers truthfully how often backups run", () => {
    const answer = faqs.find((f) => f.q === "How often are my posts backed up?")!.a;
    expect(answer).toContain("every 10 minutes");
    expect(answer).toContain("Start Backup");
    expect(answer).not.toMatch(/daily|weekly/);
  });
});

describe("help FAQ claims", () => {
  it("promises no bulk download the Backups page does not have, and says where downloads are", async () => {
    const { HelpPage } = await import("../src/pages/help/help-page.tsx");
    renderWithAuth(<HelpPage />, { path: "/help" });
    const text = document.body.textContent ?? "";
    expect(text).not.toMatch(/bulk download/i);
    expect(text).toContain("Drive can download a whole folder (an account or a year) as a zip");
    expect(text).toContain("On the Backups page, View opens each backed-up post's file in Drive.");
  });
});

describe("help support cards and FAQ wording", () => {
  it("names the contact-form card for what it does and the billing button as Settings shows it", async () => {
    const { HelpPage } = await import("../src/pages/help/help-page.tsx");
    renderWithAuth(<HelpPage />, { path: "/help" });
    const text = document.body.textContent ?? "";
    // There is no live chat: the card opens the contact form and says so.
    expect(text).not.toMatch(/live chat|start chat/i);
    expect(screen.getByRole("link", { name: "Open Contact Form" }).getAttribute("href")).toBe(
      "/contact",
    );
    // Settings → Subscription's button is "Manage Billing" (SPEC §2 Settings).
    const cancel = faqs.find((f) => f.q === "How do I cancel my subscription?")!.a;
    expect(cancel).toContain("Settings → Subscription and choose Manage Billing");
    expect(text).not.toContain("Manage Subscription");
  });
});
