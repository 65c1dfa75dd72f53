import type { DestinationInfo, DestinationKind, InstagramAccount } from "@keepsake/contracts";
import { DESTINATION_LABELS } from "@keepsake/contracts/destination-kinds";
import type { FakeRequest } from "../fake-api.ts";
import { accountsResponse, status } from "./connections.tsx";

/** One destination as `GET /api/destinations` lists it; not connected unless overridden. */
export function destination(
  kind: DestinationKind,
  overrides: Partial<DestinationInfo> = {},
): DestinationInfo {
  return {
    kind,
    label: DESTINATION_LABELS[kind],
    connected: false,
    account: null,
    needs_reconnect: false,
    status_reason: null,
    accounts_using: 0,
    ...overrides,
  };
}

/** Drive connected with two accounts, Dropbox not connected, OneDrive lost, S3 connected. */
export function mixedDestinations(): DestinationInfo[] {
  return [
    destination("google_drive", {
      connected: true,
      account: "jordan.lee@example.com",
      accounts_using: 2,
    }),
    destination("dropbox"),
    destination("onedrive", {
      connected: true,
      account: "jordan@outlook.com",
      needs_reconnect: true,
      status_reason: "Microsoft says Keepsake's access was removed.",
    }),
    destination("s3", {
      connected: true,
      account: "lumen-backups at s3.eu-west-1.amazonaws.com",
      accounts_using: 1,
    }),
  ];
}

/**
 * The Settings routes a destinations test needs: OAuth status (Instagram and Drive connected),
 * the accounts and the destinations as `state` holds them; `extra` answers the rest (404 else).
 */
export function settingsRoute(
  state: { accounts: InstagramAccount[]; destinations: DestinationInfo[] },
  extra: (req: FakeRequest) => [number, unknown] | Promise<[number, unknown]> | undefined = () =>
    undefined,
) {
  return async (req: FakeRequest): Promise<[number, unknown]> => {
    const answer = await extra(req);
    if (answer) return answer;
    if (req.path === "/oauth/status") {
      return [
        200,
        status({
          instagram_connected: state.accounts.length > 0,
          instagram_username: state.accounts[0]?.username ?? null,
          google_connected: true,
          google_email: "jordan.lee@example.com",
        }),
      ];
    }
    if (req.path === "/accounts/instagram-accounts") {
      return [200, accountsResponse(state.accounts, "pro", 3)];
    }
    if (req.path === "/destinations") return [200, { destinations: state.destinations }];
    return [404, { detail: "Not Found" }];
  };
}
