import type { HealthFix } from "@keepsake/contracts";
import { syncMessages } from "@keepsake/contracts/sync-messages";
import { FixLink } from "../components/fix-link.tsx";
import { Link } from "./navigation.tsx";
import { toast } from "./toast.ts";

/** Where the connect buttons are (SPEC §2: Settings → Connected Accounts, on every plan). */
export const CONNECTIONS_PATH = "/settings?tab=connections";

const CONNECT_FIRST = new Set<string>([
  syncMessages.instagramNotConnected,
  syncMessages.googleNotConnected,
]);

/**
 * Whether a message asks the user to connect something first (Dropbox, OneDrive and S3 say
 * "Connect Dropbox in Settings first", "Enter new keys in Settings").
 */
export const isConnectFirst = (message: string) =>
  CONNECT_FIRST.has(message) ||
  /reconnect|connect your|connect .+ first|in settings/i.test(message);

/** A message with the link to where it is done (a "connect first" message gets one). */
export function ConnectFirstMessage({ message }: { message: string }) {
  return (
    <span>
      {message}{" "}
      <Link to={CONNECTIONS_PATH} className="toast-link" data-testid="connect-first-link">
        Go to Connected Accounts
      </Link>
    </span>
  );
}

/** An error toast; a "connect first" one links to where the connection is made. */
export function errorToast(message: string) {
  if (isConnectFirst(message)) toast.error(<ConnectFirstMessage message={message} />);
  else toast.error(message);
}

/** A toast that says what happened and carries the control that fixes it. */
export function fixToast(
  kind: "success" | "error" | "warning" | "info",
  text: string,
  fix: HealthFix | null,
) {
  toast[kind](
    fix ? (
      <span>
        {text} <FixLink fix={fix} className="toast-link" />
      </span>
    ) : (
      text
    ),
  );
}
