import { render, screen } from "@testing-library/react";
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { navigate } from "wouter/use-browser-location";
import { ErrorBoundary } from "../src/components/error-boundary.tsx";
import { goTo } from "./helpers.tsx";

function Broken(): never {
  throw new Error("The screen broke");
}

describe("error screen (SPEC §8)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("shows 'Unexpected Application Error!' and the message, until the page changes", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    goTo("/dashboard");
    function Page() {
      return window.location.pathname === "/dashboard" ? <Broken /> : <p>Another page</p>;
    }
    render(
      <ErrorBoundary>
        <Page />
      </ErrorBoundary>,
    );
    expect(screen.getByRole("heading", { level: 2 }).textContent).toBe(
      "Unexpected Application Error!",
    );
    expect(screen.getByRole("heading", { level: 3 }).textContent).toBe("The screen broke");
    act(() => navigate("/backups"));
    expect(screen.getByText("Another page")).toBeTruthy();
  });
});
