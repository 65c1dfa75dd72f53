import { messages } from "@keepsake/contracts";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../src/api/client.ts";
import { LoginPage, redirectTarget } from "../src/pages/login/login-page.tsx";
import { makeAuth, renderWithAuth } from "./helpers.tsx";

function alerts(): string[] {
  return screen.queryAllByRole("alert").map((el) => el.textContent ?? "");
}

describe("login form", () => {
  it("shows the §5 messages on submit and revalidates on change", async () => {
    const user = userEvent.setup();
    const auth = makeAuth();
    renderWithAuth(<LoginPage />, { auth, path: "/login" });

    expect(alerts()).toEqual([]);
    await user.click(screen.getByRole("button", { name: "Sign In" }));
    expect(await screen.findByText(messages.emailRequired)).toBeTruthy();
    expect(screen.getByText(messages.passwordRequired)).toBeTruthy();

    const email = screen.getByLabelText("Email address");
    await user.type(email, "jane");
    expect(await screen.findByText(messages.emailInvalid)).toBeTruthy();
    await user.type(email, "@example.com");
    await waitFor(() => expect(screen.queryByText(messages.emailInvalid)).toBeNull());

    const password = screen.getByLabelText("Password");
    await user.type(password, "abc");
    expect(await screen.findByText(messages.passwordShortLogin)).toBeTruthy();
    await user.type(password, "def");
    await waitFor(() => expect(alerts()).toEqual([]));
    expect(auth.login).not.toHaveBeenCalled();

    await user.click(screen.getByRole("button", { name: "Sign In" }));
    await waitFor(() =>
      expect(auth.login).toHaveBeenCalledWith({ email: "jane@example.com", password: "abcdef" }),
    );
  });

  it("shows 'Signing in...' on a disabled button while the request runs", async () => {
    const user = userEvent.setup();
    const auth = makeAuth({ login: vi.fn(() => new Promise<never>(() => {})) });
    renderWithAuth(<LoginPage />, { auth, path: "/login" });
    await user.type(screen.getByLabelText("Email address"), "jane@example.com");
    await user.type(screen.getByLabelText("Password"), "abcdef");
    await user.click(screen.getByRole("button", { name: "Sign In" }));
    const busy = await screen.findByRole("button", { name: "Signing in..." });
    expect((busy as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows the server's detail when signing in fails", async () => {
    const user = userEvent.setup();
    const failure = new ApiError("Request failed with status code 401", {
      status: 401,
      data: { detail: "Incorrect email or password" },
      method: "POST",
      path: "/auth/login",
    });
    const auth = makeAuth({ login: vi.fn(async () => Promise.reject(failure)) });
    renderWithAuth(<LoginPage />, { auth, path: "/login" });

    await user.type(screen.getByLabelText("Email address"), "jane@example.com");
    await user.type(screen.getByLabelText("Password"), "wrong-password");
    await user.click(screen.getByRole("button", { name: "Sign In" }));
    expect(await screen.findByText("Incorrect email or password")).toBeTruthy();
  });

  it("toggles the password visibility", async () => {
    const user = userEvent.setup();
    renderWithAuth(<LoginPage />, { path: "/login" });
    const password = screen.getByLabelText("Password");
    expect(password.getAttribute("type")).toBe("password");
    await user.click(screen.getByRole("button", { name: "Show password" }));
    expect(password.getAttribute("type")).toBe("text");
    await user.click(screen.getByRole("button", { name: "Hide password" }));
    expect(password.getAttribute("type")).toBe("password");
  });

  it("returns to the origin page after login", () => {
    expect(redirectTarget({ from: { pathname: "/backups", search: "?x=1", hash: "" } })).toBe(
      "/backups?x=1",
    );
    expect(redirectTarget(null)).toBe("/dashboard");
    expect(redirectTarget({ from: { pathname: "//evil.example" } })).toBe("/dashboard");
  });
});
