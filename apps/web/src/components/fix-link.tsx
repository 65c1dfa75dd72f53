import type { HealthFix } from "@keepsake/contracts";
import { Link } from "../lib/navigation.tsx";

/** The control that does a fix: an in-app link, or a new tab for an outside page. */
export function FixLink({
  fix,
  className = "btn btn-primary btn-sm",
}: {
  fix: HealthFix;
  className?: string;
}) {
  if (/^https?:\/\//.test(fix.path)) {
    return (
      <a href={fix.path} className={className} target="_blank" rel="noreferrer">
        {fix.label}
      </a>
    );
  }
  return (
    <Link to={fix.path} className={className}>
      {fix.label}
    </Link>
  );
}
