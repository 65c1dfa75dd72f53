import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { SiteFooter } from "../src/components/site-footer.tsx";
import { SiteHeader } from "../src/components/site-header.tsx";
import { avatarInitial } from "../src/lib/user.ts";
import { makeAuth, makeUser, renderWithAuth } from "./helpers.tsx";

function navLabels(): string[] {
  const nav = screen.getByRole("navigation", { name: "Main" });
  return within(nav)
    .queryAllByRole("link")
    .map((a) => a.textContent ?? "");
}

describe("avatar initial", () => {
  it("uses the first letter of full_name, else of the e-mail, upper-cased", () => {
    expect(avatarInitial({ full_name: "jane doe", email: "x@example.com" })).toBe("J");
    expect(avatarInitial({ full_name: null, email: "mia@example.com" })).toBe("M");
    expect(avatarInitial({ full_name: "  ", email: "zed@example.com" })).toBe("Z");
  });

  it("is shown in the header for a signed-in user", () => {
    renderWithAuth(<SiteHeader />, { auth: makeAuth({ user: makeUser({ full_name: "oscar" }) }) });
    expect(screen.getByTestId("avatar-initial").textContent).toBe("O");
  });
});

describe("navigation by auth state", () => {
  it("shows neither Sign In nor Get Started while a stored session's profile loads", () => {
    renderWithAuth(<SiteHeader />, { auth: makeAuth({ token: "token", isLoading: true }) });
    expect(navLabels()).toEqual([]);
    expect(screen.getByTestId("nav-pending").getAttribute("aria-busy")).toBe("true");
  });

  it("shows Features only on / for visitors", () => {
    renderWithAuth(<SiteHeader />, { path: "/" });
    expect(navLabels()).toEqual(["Features", "Pricing", "Sign In", "Get Started"]);
  });

  it("hides Features on other pages for visitors", () => {
    renderWithAuth(<SiteHeader />, { path: "/pricing" });
    expect(navLabels()).toEqual(["Pricing", "Sign In", "Get Started"]);
  });

  it("shows the app links, without Admin, to a user", () => {
    renderWithAuth(<SiteHeader />, { auth: makeAuth({ user: makeUser() }), path: "/dashboard" });
    expect(navLabels()).toEqual(["Dashboard", "Backups", "Settings", "Pricing"]);
    expect(screen.getByRole("button", { name: "Logout" })).toBeTruthy();
  });

  it("adds Admin for an administrator", () => {
    renderWithAuth(<SiteHeader />, {
      auth: makeAuth({ user: makeUser({ is_admin: true }) }),
      path: "/dashboard",
    });
    expect(navLabels()).toEqual(["Dashboard", "Backups", "Settings", "Pricing", "Admin"]);
  });
});

describe("mobile menu", () => {
  it("opens and closes with its toggle, and closes after a navigation", async () => {
    renderWithAuth(<SiteHeader />, { path: "/" });
    const toggle = screen.getByRole("button", { name: "Open menu" });
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    fireEvent.click(screen.getByRole("button", { name: "Close menu" }));
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    fireEvent.click(screen.getByRole("link", { name: "Pricing" }));
    await waitFor(() => expect(toggle.getAttribute("aria-expanded")).toBe("false"));
    expect(screen.getByRole("button", { name: "Open menu" })).toBe(toggle);
  });
});

describe("footer", () => {
  it("links every §2 footer page, the socials in a new tab and the contact details", () => {
    renderWithAuth(<SiteFooter />);
    const hrefs = screen.getAllByRole("link").map((a) => a.getAttribute("href"));
    for (const path of [
      "/pricing",
      "/dashboard",
      "/backups",
      "/help",
      "/contact",
      "/status",
      "/docs",
      "/privacy",
      "/terms",
      "/cookies",
      "/security",
      "/about",
      "/blog",
      "/careers",
      "/press",
    ]) {
      expect(hrefs).toContain(path);
    }
    const social = screen.getByRole("link", { name: "LinkedIn" });
    expect(social.getAttribute("target")).toBe("_blank");
    expect(social.getAttribute("rel")).toContain("noopener");
    expect(screen.getAllByText("San Francisco, CA").length).toBeGreaterThan(0);
  });
});
