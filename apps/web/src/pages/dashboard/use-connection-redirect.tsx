import { useEffect, useRef, useState } from "react";
import { useInvalidateConnections } from "../../api/connections.ts";
import { useLocation, useNavigate } from "../../lib/navigation.tsx";
import { toast } from "../../lib/toast.ts";
import "./connections.css";

export const CONNECTED_TOASTS = {
  instagram: "Instagram account connected successfully!",
  facebook: "Instagram account connected via Facebook!",
  google: "Google Drive connected successfully!",
} as const;

/**
 * Back from a re-consent for one account (the callback's `purpose` and `account`, issue 36): what
 * changed, rather than "connected".
 */
export const PURPOSE_TOASTS = {
  comments: (username: string) =>
    `Comments of @${username} are now kept: Keepsake reads them after each backup.`,
  stories: (username: string) =>
    `@${username} now uses Facebook Login: its stories are backed up too.`,
} as const;

/** The success toast for `?instagram_connected=true…`. */
export function connectedToast(params: URLSearchParams): { id: string; text: string } {
  const via = params.get("via") === "facebook" ? "facebook" : "instagram";
  const purpose = params.get("purpose");
  const account = params.get("account");
  if (account && (purpose === "comments" || purpose === "stories")) {
    return { id: `${purpose}-${account}`, text: PURPOSE_TOASTS[purpose](account) };
  }
  return { id: `connected-${via}`, text: CONNECTED_TOASTS[via] };
}

/** The banner's text when the redirect did not carry one. */
export const FACEBOOK_PAGE_BANNER =
  "Your Instagram account must be a Professional (Business or Creator) account linked to a Facebook Page before Keepsake can back it up.";

const PERSONAL_TOAST_ID = "personal-account";

/** SPEC §2: the persistent toast for a personal account, with the steps to switch. */
export function PersonalAccountToast() {
  return (
    <div className="personal-account-toast">
      <strong>Only Professional (Business or Creator) Instagram accounts can be backed up.</strong>
      <p>Switch your account in the Instagram app — it is free and takes a minute:</p>
      <ol>
        <li>Open your profile, tap the menu and go to Settings.</li>
        <li>Choose “Account type and tools”, then “Switch to professional account”.</li>
        <li>Pick Creator or Business and finish the steps.</li>
        <li>Come back to Keepsake and connect Instagram again.</li>
      </ol>
    </div>
  );
}

/**
 * Handles the connection redirect parameters on arrival at /dashboard (SPEC §2): success
 * toasts and cache invalidation, the banner for page-related errors, the persistent
 * personal-account toast, other errors as toasts; then the URL is replaced with /dashboard.
 * Returns the banner text (null when none) and a way to dismiss it.
 */
export function useConnectionRedirect(): { banner: string | null; dismiss: () => void } {
  const location = useLocation();
  const navigate = useNavigate();
  const invalidate = useInvalidateConnections();
  const [banner, setBanner] = useState<string | null>(null);
  const handled = useRef<string | null>(null);

  useEffect(() => {
    const search = location.search;
    if (!search || handled.current === search) return;
    const params = new URLSearchParams(search);
    const keys = ["error", "error_type", "instagram_connected", "google_connected", "via"];
    if (!keys.some((k) => params.has(k))) return;
    handled.current = search;

    const error = params.get("error");
    const errorType = params.get("error_type");
    if (params.get("instagram_connected") === "true") {
      const { id, text } = connectedToast(params);
      toast.success(text, { toastId: id });
      void invalidate();
    }
    if (params.get("google_connected") === "true") {
      toast.success(CONNECTED_TOASTS.google, { toastId: "connected-google" });
      void invalidate();
    }
    if (errorType === "facebook_page_required" || errorType === "unsupported_account") {
      setBanner(error || FACEBOOK_PAGE_BANNER);
    } else if (errorType === "personal_account") {
      toast.warning(<PersonalAccountToast />, { toastId: PERSONAL_TOAST_ID, autoClose: false });
    } else if (error) {
      if (error.includes("Facebook Page")) setBanner(error);
      else toast.error(error, { toastId: `connect-error-${error}` });
    }
    navigate("/dashboard", { replace: true });
  }, [location.search, navigate, invalidate]);

  return { banner, dismiss: () => setBanner(null) };
}
