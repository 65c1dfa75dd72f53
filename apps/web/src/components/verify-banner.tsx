import { useState } from "react";
import { resendVerification } from "../api/auth.ts";
import { errorDetail } from "../api/client.ts";
import { useAuth } from "../lib/auth.tsx";

/** Asks a signed-in user whose address is not verified yet to open the link, with a resend. */
export function VerifyBanner() {
  const { user } = useAuth();
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!user || user.email_verified) return null;
  const resend = async () => {
    setBusy(true);
    try {
      setNote(await resendVerification());
    } catch (error) {
      setNote(errorDetail(error, "Could not send the link. Please try again."));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="verify-banner" aria-label="Verify your e-mail address">
      <span>
        Please verify your e-mail address. We sent a link to <strong>{user.email}</strong> — open it
        so we can reach you when a backup needs you.
      </span>
      {note ? (
        <span className="verify-banner-note" role="status">
          {note}
        </span>
      ) : (
        <button className="btn btn-secondary btn-sm" onClick={resend} disabled={busy}>
          {busy ? "Sending..." : "Resend link"}
        </button>
      )}
    </section>
  );
}
