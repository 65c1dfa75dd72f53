import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiKeysTab } from "../src/pages/settings/api-keys-tab.tsx";
import { type FakeRequest, fakeFetch } from "./fake-api.ts";
import { renderWithQueryClient } from "./helpers.tsx";

const FULL_KEY = "ks_live_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG";
let calls: FakeRequest[];
let access: boolean;
let keys: {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}[];

beforeEach(() => {
  calls = [];
  access = true;
  keys = [
    {
      id: "k1",
      name: "Old script",
      prefix: "ks_live_zzzz",
      created_at: "2026-03-05T12:00:00.000Z",
      last_used_at: null,
    },
  ];
  vi.stubGlobal(
    "fetch",
    fakeFetch((req) => {
      if (req.method === "GET" && req.path === "/api-keys") {
        return [200, { keys, api_access: access, limit: 10 }];
      }
      if (req.method === "POST" && req.path === "/api-keys") {
        const created = {
          id: "k2",
          name: (req.body as { name: string }).name,
          prefix: FULL_KEY.slice(0, 12),
          created_at: "2026-03-06T12:00:00.000Z",
          last_used_at: null,
        };
        keys = [created, ...keys];
        return [201, { ...created, key: FULL_KEY }];
      }
      if (req.method === "DELETE" && req.path === "/api-keys/k1") {
        keys = keys.filter((k) => k.id !== "k1");
        return [200, { message: "API key revoked" }];
      }
      return [404, { detail: "Not Found" }];
    }, calls),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
});

function renderTab() {
  renderWithQueryClient(<ApiKeysTab />);
}

describe("Settings → API keys", () => {
  it("lists keys by name, prefix, creation and last use", async () => {
    renderTab();
    const row = (await screen.findByText("Old script")).closest("tr") as HTMLElement;
    expect(within(row).getByText("ks_live_zzzz…")).toBeTruthy();
    expect(within(row).getByText("Mar 5, 2026")).toBeTruthy();
    expect(within(row).getByText("Never")).toBeTruthy();
  });

  it("creates a named key and shows it once, in full, with a copy button", async () => {
    renderTab();
    await screen.findByText("Old script");
    await userEvent.type(screen.getByLabelText("Key name"), "Nightly");
    await userEvent.click(screen.getByRole("button", { name: "Create key" }));
    expect((await screen.findByTestId("new-api-key")).textContent).toBe(FULL_KEY);
    expect(screen.getByRole("button", { name: "Copy" })).toBeTruthy();
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({ name: "Nightly" });
    await userEvent.click(screen.getByRole("button", { name: "Done" }));
    expect(screen.queryByTestId("new-api-key")).toBeNull();
    expect(await screen.findByText("Nightly")).toBeTruthy();
  });

  it("revokes a key after confirmation", async () => {
    renderTab();
    await userEvent.click(await screen.findByRole("button", { name: "Revoke Old script" }));
    await userEvent.click(screen.getByRole("button", { name: "Revoke" }));
    await waitFor(() => expect(screen.queryByText("Old script")).toBeNull());
    expect(calls.some((c) => c.method === "DELETE" && c.path === "/api-keys/k1")).toBe(true);
  });

  it("shows plans without API access an upgrade notice instead of the form", async () => {
    access = false;
    keys = [];
    renderTab();
    expect(await screen.findByText(/included in the Pro and Agency plans/)).toBeTruthy();
    expect(screen.getByRole("link", { name: "Upgrade" }).getAttribute("href")).toBe("/pricing");
    expect(screen.queryByLabelText("Key name")).toBeNull();
  });
});
