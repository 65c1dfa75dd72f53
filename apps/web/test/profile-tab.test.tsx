import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthProvider } from "../src/lib/auth.tsx";
import { TOKEN_KEY } from "../src/lib/session.ts";
import { toast } from "../src/lib/toast.ts";
import { ProfileTab } from "../src/pages/settings/profile-tab.tsx";
import { type FakeRequest, fakeFetch } from "./fake-api.ts";
import { makeUser, renderWithQueryClient } from "./helpers.tsx";

let calls: FakeRequest[];
let patchReply: [number, unknown];
let profile = makeUser();
const success = vi.spyOn(toast, "success");
const failure = vi.spyOn(toast, "error");

beforeEach(() => {
  calls = [];
  profile = makeUser({ full_name: "Jane Doe", email: "jane@example.com" });
  patchReply = [200, null];
  success.mockClear();
  failure.mockClear();
  window.localStorage.setItem(TOKEN_KEY, "tok");
  vi.stubGlobal(
    "fetch",
    fakeFetch((req) => {
      if (req.method === "GET" && req.path === "/auth/me") return [200, profile];
      if (req.method === "PATCH" && req.path === "/auth/me") {
        if (patchReply[0] !== 200) return patchReply;
        profile = { ...profile, full_name: String((req.body as { full_name: string }).full_name) };
        return [200, profile];
      }
      return [404, {}];
    }, calls),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
});

function renderTab() {
  renderWithQueryClient(
    <AuthProvider>
      <ProfileTab />
    </AuthProvider>,
  );
}

describe("Settings → Profile Information", () => {
  it("shows the e-mail read-only, saves the full name and toasts success", async () => {
    renderTab();
    const email = (await screen.findByLabelText("Email address")) as HTMLInputElement;
    expect(email.value).toBe("jane@example.com");
    expect(email.readOnly).toBe(true);
    expect(screen.getByText(/More settings are coming/)).toBeTruthy();

    const name = screen.getByLabelText("Full name") as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe("Jane Doe"));
    const save = screen.getByRole("button", { name: "Save Changes" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    await userEvent.clear(name);
    await userEvent.type(name, "Jane Q. Doe");
    await userEvent.click(save);
    await waitFor(() => expect(success).toHaveBeenCalledWith("Profile updated successfully"));
    const patch = calls.find((c) => c.method === "PATCH");
    expect(patch?.body).toEqual({ full_name: "Jane Q. Doe" });
    expect(name.value).toBe("Jane Q. Doe");
    await waitFor(() => expect(save.disabled).toBe(true));
  });

  it("validates the name before sending (SPEC §5)", async () => {
    renderTab();
    const name = (await screen.findByLabelText("Full name")) as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe("Jane Doe"));
    await userEvent.clear(name);
    await userEvent.type(name, "J");
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
    expect(await screen.findByText("Full name must be at least 2 characters")).toBeTruthy();
    expect(calls.some((c) => c.method === "PATCH")).toBe(false);
  });

  it("toasts the server's detail, else 'Profile update failed'", async () => {
    renderTab();
    const name = (await screen.findByLabelText("Full name")) as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe("Jane Doe"));
    patchReply = [422, { detail: "Full name is not allowed" }];
    await userEvent.type(name, "!");
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
    await waitFor(() => expect(failure).toHaveBeenCalledWith("Full name is not allowed"));
    patchReply = [500, {}];
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
    await waitFor(() => expect(failure).toHaveBeenLastCalledWith("Profile update failed"));
    expect(success).not.toHaveBeenCalled();
  });
});
