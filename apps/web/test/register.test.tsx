import { messages } from "@keepsake/contracts";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { RegisterPage } from "../src/pages/register/register-page.tsx";
import { makeAuth, renderWithAuth } from "./helpers.tsx";

describe("register form", () => {
  it("shows every §5 message on submit and revalidates on change", async () => {
    const user = userEvent.setup();
    const auth = makeAuth();
    renderWithAuth(<RegisterPage />, { auth, path: "/register" });

    await user.click(screen.getByRole("button", { name: "Create Account" }));
    for (const text of [
      messages.fullNameRequired,
      messages.emailRequired,
      messages.passwordRequired,
      messages.confirmRequired,
    ]) {
      expect(await screen.findByText(text)).toBeTruthy();
    }

    const fullName = screen.getByLabelText("Full name");
    await user.type(fullName, "J");
    expect(await screen.findByText(messages.fullNameShort)).toBeTruthy();
    await user.type(fullName, "ane Doe");
    await waitFor(() => expect(screen.queryByText(messages.fullNameShort)).toBeNull());

    const email = screen.getByLabelText("Email address");
    await user.type(email, "jane@");
    expect(await screen.findByText(messages.emailInvalid)).toBeTruthy();
    await user.type(email, "example.com");
    await waitFor(() => expect(screen.queryByText(messages.emailInvalid)).toBeNull());

    const password = screen.getByLabelText("Password");
    await user.type(password, "abcdefg");
    expect(await screen.findByText(messages.passwordShortRegister)).toBeTruthy();
    await user.type(password, "h");
    expect(await screen.findByText(messages.passwordWeak)).toBeTruthy();
    await user.clear(password);
    await user.type(password, "Abcdefg1");
    await waitFor(() => expect(screen.queryByText(messages.passwordWeak)).toBeNull());

    const confirm = screen.getByLabelText("Confirm password");
    await user.type(confirm, "Abcdefg2");
    expect(await screen.findByText(messages.passwordsDiffer)).toBeTruthy();
    await user.clear(confirm);
    await user.type(confirm, "Abcdefg1");
    await waitFor(() => expect(screen.queryAllByRole("alert")).toEqual([]));
    expect(auth.register).not.toHaveBeenCalled();

    await user.click(screen.getByRole("button", { name: "Create Account" }));
    await waitFor(() =>
      expect(auth.register).toHaveBeenCalledWith({
        full_name: "Jane Doe",
        email: "jane@example.com",
        password: "Abcdefg1",
      }),
    );
  });

  it("shows 'Creating account...' on a disabled button while the request runs", async () => {
    const user = userEvent.setup();
    const auth = makeAuth({ register: vi.fn(() => new Promise<never>(() => {})) });
    renderWithAuth(<RegisterPage />, { auth, path: "/register" });
    await user.type(screen.getByLabelText("Full name"), "Jane Doe");
    await user.type(screen.getByLabelText("Email address"), "jane@example.com");
    await user.type(screen.getByLabelText("Password"), "Abcdefg1");
    await user.type(screen.getByLabelText("Confirm password"), "Abcdefg1");
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    const busy = await screen.findByRole("button", { name: "Creating account..." });
    expect((busy as HTMLButtonElement).disabled).toBe(true);
  });

  it("has show/hide toggles on both password fields and a link to /login", () => {
    renderWithAuth(<RegisterPage />, { path: "/register" });
    expect(screen.getByRole("button", { name: "Show password" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Show confirm password" })).toBeTruthy();
    expect(screen.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/login");
  });
});
