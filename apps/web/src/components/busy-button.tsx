import type { ReactNode } from "react";

/** A small secondary button that is disabled, and says `busyLabel`, while its work runs. */
export function BusyButton({
  busy,
  busyLabel,
  onClick,
  children,
}: {
  busy: boolean;
  busyLabel: string;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button type="button" className="btn btn-secondary btn-sm" onClick={onClick} disabled={busy}>
      {busy ? busyLabel : children}
    </button>
  );
}
