import { DESTINATION_LABELS, isDestinationKind } from "@keepsake/contracts/destination-kinds";
import { useEffect, useRef } from "react";
import { useInvalidateConnections } from "../../api/connections.ts";
import { useLocation, useNavigate } from "../../lib/navigation.tsx";
import { toast } from "../../lib/toast.ts";

/**
 * Back on /settings from a destination's consent screen (issue 38):
 * `?destination=dropbox&status=connected` toasts "Dropbox connected" and refetches the
 * connections; `?error=…` toasts the error. Then the URL is replaced with /settings, as the
 * dashboard does after Instagram's and Google's.
 */
export function useDestinationReturn(): void {
  const location = useLocation();
  const navigate = useNavigate();
  const invalidate = useInvalidateConnections();
  const handled = useRef<string | null>(null);

  useEffect(() => {
    const search = location.search;
    if (!search || handled.current === search) return;
    const params = new URLSearchParams(search);
    if (!params.has("destination") && !params.has("error")) return;
    handled.current = search;

    const kind = params.get("destination");
    const error = params.get("error");
    if (error) {
      toast.error(error, { toastId: `destination-error-${error}` });
    } else if (isDestinationKind(kind) && params.get("status") === "connected") {
      toast.success(`${DESTINATION_LABELS[kind]} connected`, { toastId: `connected-${kind}` });
      void invalidate();
    }
    navigate("/settings", { replace: true });
  }, [location.search, navigate, invalidate]);
}
