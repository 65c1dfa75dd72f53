import { Link } from "../../lib/navigation.tsx";
import "./connections.css";

/** SPEC §2: the red banner about the Facebook Page, with 'Go to Settings' and 'Dismiss'. */
export function ConnectionBanner({
  message,
  onDismiss,
}: {
  message: string;
  onDismiss: () => void;
}) {
  return (
    <div className="split-row connection-banner" role="alert">
      <div>
        <strong className="connection-banner-title">Instagram could not be connected</strong>
        <p>{message}</p>
      </div>
      <div className="connection-banner-actions">
        <Link to="/settings" className="btn btn-light btn-sm">
          Go to Settings
        </Link>
        <button className="btn btn-sm connection-banner-dismiss" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
    </div>
  );
}
