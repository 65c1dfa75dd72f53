import { Link } from "../lib/navigation.tsx";

export function Logo() {
  return (
    <Link to="/" className="logo" aria-label="Keepsake home">
      <span className="logo-mark" aria-hidden="true">
        K
      </span>
      <span className="logo-text">Keepsake</span>
    </Link>
  );
}
