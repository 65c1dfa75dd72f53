import { createApiReference } from "@scalar/api-reference";
import "@scalar/api-reference/style.css";
import { useEffect, useRef } from "react";

/**
 * The reference of /api/v1, rendered by Scalar from the OpenAPI document. This module is
 * loaded only by the /docs page (a chunk of its own), so no other page carries the renderer.
 */
export function ApiReference({ document }: { document: Record<string, unknown> }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!el.current) return;
    const reference = createApiReference(el.current, {
      content: document,
      layout: "classic",
      withDefaultFonts: false,
      hideDarkModeToggle: true,
      forceDarkModeState: "light",
      showDeveloperTools: "never",
      telemetry: false,
      hideClientButton: true,
      documentDownloadType: "json",
      // No third-party proxy: "try it" calls go straight to this origin's API.
      proxyUrl: "",
    });
    return () => reference.destroy();
  }, [document]);
  return <div ref={el} className="api-reference" data-testid="api-reference" />;
}
