import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

vi.mock("../src/lib/redirect.ts", () => ({ hardRedirect: vi.fn() }));

const { hardRedirect } = await import("../src/lib/redirect.ts");
const { fakeFetch } = await import("./fake-api.ts");
const { account, renderSettings, withConnectionsApi } = await import("./support/connections.tsx");
const { destination, mixedDestinations, settingsRoute } = await import("./support/destinations.ts");

import type { FakeRequest } from "./fake-api.ts";

// Settings → Storage (issue 38): the destinations' cards, S3's form and disconnecting. Each
// account's "Back up to" and the return from a consent screen: account-destination.test.tsx.
withConnectionsApi();

function serveSettings(
  state: Parameters<typeof settingsRoute>[0],
  extra?: Parameters<typeof settingsRoute>[1],
) {
  const calls: FakeRequest[] = [];
  vi.stubGlobal("fetch", fakeFetch(settingsRoute(state, extra), calls));
  return calls;
}

const region = (name: string) => screen.findByRole("region", { name });

describe("Settings → Storage", () => {
  it("lists each destination with its state, its use, and what can be done", async () => {
    serveSettings({ accounts: [account()], destinations: mixedDestinations() });
    renderSettings("pro");
    expect(await screen.findByRole("heading", { name: "Storage" })).toBeTruthy();

    const drive = await region("Google Drive");
    expect(await within(drive).findByText("Used by 2 accounts")).toBeTruthy();
    expect(within(drive).getByText("jordan.lee@example.com")).toBeTruthy();

    const dropbox = await region("Dropbox");
    expect(within(dropbox).getByText("Not connected")).toBeTruthy();
    expect(dropbox.textContent).toContain("Apps/Keepsake");
    expect(within(dropbox).getByRole("button", { name: "Connect Dropbox" })).toBeTruthy();
    expect(within(dropbox).queryByRole("button", { name: /Disconnect/ })).toBeNull();
    expect(within(dropbox).queryByText(/^Used by/)).toBeNull();

    const onedrive = await region("OneDrive");
    expect(within(onedrive).getByText("Needs reconnection")).toBeTruthy();
    expect(onedrive.textContent).toContain(
      "Backups to OneDrive are paused: Microsoft says Keepsake's access was removed.",
    );
    expect(within(onedrive).getByRole("button", { name: "Reconnect OneDrive" })).toBeTruthy();
    expect(within(onedrive).getByText("Used by 0 accounts")).toBeTruthy();

    const s3 = await region("S3 storage");
    expect(within(s3).getByText("Connected")).toBeTruthy();
    expect(
      within(s3).getByText("Connected as lumen-backups at s3.eu-west-1.amazonaws.com"),
    ).toBeTruthy();
    expect(within(s3).getByText("Used by 1 account")).toBeTruthy();
    expect(within(s3).getByRole("button", { name: "Disconnect S3 storage" })).toBeTruthy();
    expect(within(s3).queryByRole("button", { name: /^(Connect|Reconnect)/ })).toBeNull();
  });

  it("Connect Dropbox and Reconnect OneDrive go to the provider's consent page; a refusal toasts its detail", async () => {
    let refuse = false;
    const calls = serveSettings(
      { accounts: [account()], destinations: mixedDestinations() },
      (req) => {
        if (req.path === "/oauth/dropbox/auth-url") {
          return refuse
            ? [503, { detail: "Dropbox is not available right now. Try again in a minute." }]
            : [
                200,
                { authorization_url: "http://127.0.0.1:8090/www.dropbox.com/oauth2/authorize?s=1" },
              ];
        }
        if (req.path === "/oauth/onedrive/auth-url") {
          return [
            200,
            {
              authorization_url:
                "http://127.0.0.1:8090/login.microsoftonline.com/common/oauth2/v2.0/authorize?s=2",
            },
          ];
        }
        return undefined;
      },
    );
    const user = userEvent.setup();
    renderSettings("pro");
    await user.click(
      within(await region("Dropbox")).getByRole("button", { name: "Connect Dropbox" }),
    );
    await waitFor(() =>
      expect(hardRedirect).toHaveBeenCalledWith(
        "http://127.0.0.1:8090/www.dropbox.com/oauth2/authorize?s=1",
      ),
    );
    expect(calls.filter((c) => c.path === "/oauth/dropbox/auth-url")).toHaveLength(1);

    await user.click(
      within(await region("OneDrive")).getByRole("button", { name: "Reconnect OneDrive" }),
    );
    await waitFor(() =>
      expect(hardRedirect).toHaveBeenLastCalledWith(
        "http://127.0.0.1:8090/login.microsoftonline.com/common/oauth2/v2.0/authorize?s=2",
      ),
    );

    refuse = true;
    vi.mocked(hardRedirect).mockClear();
    await user.click(
      within(await region("Dropbox")).getByRole("button", { name: "Connect Dropbox" }),
    );
    expect(
      await screen.findByText("Dropbox is not available right now. Try again in a minute."),
    ).toBeTruthy();
    expect(hardRedirect).not.toHaveBeenCalled();
  });
});

const S3_FIELDS = {
  Endpoint: "https://s3.eu-west-1.amazonaws.com",
  Region: "eu-west-1",
  Bucket: "lumen-backups",
  "Access key ID": "AKIAEXAMPLE",
  "Secret access key": "s3cr3t/key",
};

async function openS3Form(user: ReturnType<typeof userEvent.setup>) {
  const s3 = await region("S3 storage");
  await user.click(within(s3).getByRole("button", { name: "Connect S3 storage" }));
  const form = await within(s3).findByRole("form", { name: "S3 storage" });
  return { s3, form };
}

async function fillS3(user: ReturnType<typeof userEvent.setup>, form: HTMLElement) {
  for (const [label, value] of Object.entries(S3_FIELDS)) {
    await user.type(within(form).getByLabelText(label), value);
  }
}

describe("Settings → Storage → S3", () => {
  const unconnected = () => [
    destination("google_drive", { connected: true, account: "jordan.lee@example.com" }),
    destination("s3"),
  ];

  it("checks the fields before asking the server; the secret is a password input", async () => {
    const calls = serveSettings({ accounts: [account()], destinations: unconnected() });
    const user = userEvent.setup();
    renderSettings("pro");
    const { form } = await openS3Form(user);
    expect(within(form).getByLabelText("Secret access key").getAttribute("type")).toBe("password");
    await user.type(within(form).getByLabelText("Endpoint"), "s3.amazonaws.com");
    await user.click(within(form).getByRole("button", { name: "Test connection" }));
    expect(
      await within(form).findByText(
        "Enter the endpoint as a URL, e.g. https://s3.eu-west-1.amazonaws.com",
      ),
    ).toBeTruthy();
    expect(within(form).getByText("Enter the access key ID")).toBeTruthy();
    expect(within(form).getByText("Enter the secret access key")).toBeTruthy();
    expect(calls.some((c) => c.path.startsWith("/destinations/s3"))).toBe(false);
  });

  it("Test connection shows the server's message, or the detail of its refusal", async () => {
    let refuse = false;
    const calls = serveSettings({ accounts: [account()], destinations: unconnected() }, (req) => {
      if (req.method === "POST" && req.path === "/destinations/s3/test") {
        return refuse
          ? [400, { detail: "The bucket refused the keys: check the access key ID and secret." }]
          : [200, { ok: true, message: "Keepsake wrote, read back and deleted a test file." }];
      }
      return undefined;
    });
    const user = userEvent.setup();
    renderSettings("pro");
    const { form } = await openS3Form(user);
    await fillS3(user, form);
    await user.type(within(form).getByLabelText("Prefix (optional)"), "keepsake/");
    await user.click(within(form).getByRole("button", { name: "Test connection" }));
    expect((await within(form).findByRole("status")).textContent).toBe(
      "Keepsake wrote, read back and deleted a test file.",
    );
    expect(calls.find((c) => c.path === "/destinations/s3/test")?.body).toEqual({
      endpoint: "https://s3.eu-west-1.amazonaws.com",
      region: "eu-west-1",
      bucket: "lumen-backups",
      prefix: "keepsake/",
      access_key_id: "AKIAEXAMPLE",
      secret_access_key: "s3cr3t/key",
    });

    refuse = true;
    await user.click(within(form).getByRole("button", { name: "Test connection" }));
    expect((await within(form).findByRole("alert")).textContent).toBe(
      "The bucket refused the keys: check the access key ID and secret.",
    );
    expect(within(form).queryByRole("status")).toBeNull();
    expect(calls.some((c) => c.path === "/destinations/s3")).toBe(false);
  });

  it("Save is disabled while it runs, then the card says S3 is connected", async () => {
    const state = { accounts: [account()], destinations: unconnected() };
    let answer: (value: [number, unknown]) => void = () => {};
    const calls = serveSettings(state, (req) => {
      if (req.method === "POST" && req.path === "/destinations/s3") {
        return new Promise<[number, unknown]>((resolve) => {
          answer = resolve;
        });
      }
      return undefined;
    });
    const user = userEvent.setup();
    renderSettings("pro");
    const { s3, form } = await openS3Form(user);
    await fillS3(user, form);
    await user.click(within(form).getByRole("button", { name: "Save" }));
    const saving = await within(form).findByRole("button", { name: "Saving..." });
    expect((saving as HTMLButtonElement).disabled).toBe(true);
    expect(
      (within(form).getByRole("button", { name: "Test connection" }) as HTMLButtonElement).disabled,
    ).toBe(true);
    expect(calls.find((c) => c.path === "/destinations/s3")?.body).toMatchObject({
      bucket: "lumen-backups",
      prefix: "",
    });

    state.destinations = [
      state.destinations[0]!,
      destination("s3", {
        connected: true,
        account: "lumen-backups at s3.eu-west-1.amazonaws.com",
      }),
    ];
    answer([201, { kind: "s3", connected: true }]);
    expect(await screen.findByText("S3 storage connected")).toBeTruthy();
    expect(
      await within(s3).findByText("Connected as lumen-backups at s3.eu-west-1.amazonaws.com"),
    ).toBeTruthy();
    expect(within(s3).queryByRole("form")).toBeNull();
  });

  it("a refused save shows its detail and keeps the form", async () => {
    serveSettings({ accounts: [account()], destinations: unconnected() }, (req) =>
      req.method === "POST" && req.path === "/destinations/s3"
        ? [400, { detail: "The bucket lumen-backups does not exist at this endpoint." }]
        : undefined,
    );
    const user = userEvent.setup();
    renderSettings("pro");
    const { form } = await openS3Form(user);
    await fillS3(user, form);
    await user.click(within(form).getByRole("button", { name: "Save" }));
    expect((await within(form).findByRole("alert")).textContent).toBe(
      "The bucket lumen-backups does not exist at this endpoint.",
    );
    expect((within(form).getByRole("button", { name: "Save" }) as HTMLButtonElement).disabled).toBe(
      false,
    );
  });
});

describe("Settings → Storage → Disconnect", () => {
  it("asks first, says the accounts there stop backing up, then disconnects", async () => {
    const state = { accounts: [account()], destinations: mixedDestinations() };
    const calls = serveSettings(state, (req) => {
      if (req.method === "DELETE" && req.path === "/destinations/s3") {
        state.destinations = state.destinations.map((d) =>
          d.kind === "s3" ? destination("s3") : d,
        );
        return [200, { message: "S3 storage disconnected" }];
      }
      return undefined;
    });
    const user = userEvent.setup();
    renderSettings("pro");
    const s3 = await region("S3 storage");
    await user.click(within(s3).getByRole("button", { name: "Disconnect S3 storage" }));
    let dialog = screen.getByRole("dialog", { name: "Disconnect S3 storage?" });
    expect(dialog.textContent).toContain(
      "1 Instagram account backed up to S3 storage will stop backing up until you choose another destination for it.",
    );
    expect(dialog.textContent).toContain("Files already in your bucket stay where they are.");
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);

    await user.click(within(s3).getByRole("button", { name: "Disconnect S3 storage" }));
    dialog = screen.getByRole("dialog", { name: "Disconnect S3 storage?" });
    await user.click(within(dialog).getByRole("button", { name: "Disconnect" }));
    expect(await screen.findByText("S3 storage disconnected")).toBeTruthy();
    expect(await within(s3).findByRole("button", { name: "Connect S3 storage" })).toBeTruthy();
    expect(calls.filter((c) => c.method === "DELETE").map((c) => c.path)).toEqual([
      "/destinations/s3",
    ]);
  });

  it("a failed disconnect toasts the server's detail", async () => {
    serveSettings({ accounts: [account()], destinations: mixedDestinations() }, (req) =>
      req.method === "DELETE"
        ? [502, { detail: "Keepsake could not reach Microsoft." }]
        : undefined,
    );
    const user = userEvent.setup();
    renderSettings("pro");
    const onedrive = await region("OneDrive");
    await user.click(within(onedrive).getByRole("button", { name: "Disconnect OneDrive" }));
    const dialog = screen.getByRole("dialog", { name: "Disconnect OneDrive?" });
    expect(dialog.textContent).toContain("No Instagram account is backed up to OneDrive now.");
    await user.click(within(dialog).getByRole("button", { name: "Disconnect" }));
    expect(await screen.findByText("Keepsake could not reach Microsoft.")).toBeTruthy();
  });
});
