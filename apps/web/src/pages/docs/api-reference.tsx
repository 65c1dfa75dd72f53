import { createApiReference } from "@scalar/api-reference";
import "@scalar/api-reference/style.css";
import "./api-reference.css";
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
      layout: "modern",
      withDefaultFonts: false,
      hideDarkModeToggle: true,
      forceDarkModeState: "light",
      showDeveloperTools: "never",
      telemetry: false,
      hideClientButton: true,
      // The schemas are shown with each operation; the separate Models section's accordion
      // nests focusable controls in its button (axe: nested-interactive).
      hideModels: true,
      documentDownloadType: "json",
      // No third-party proxy: "try it" calls go straight to this origin's API.
      proxyUrl: "",
    });
    // The page has its own h1: the reference's title (Scalar renders it as an h1, once) becomes
    // an h2 with the same attributes and content.
    const demote = () => {
      for (const h1 of el.current?.querySelectorAll("h1") ?? []) {
        const h2 = window.document.createElement("h2");
        for (const a of h1.attributes) h2.setAttribute(a.name, a.value);
        h2.append(...h1.childNodes);
        h1.replaceWith(h2);
      }
      // Scrolling boxes can be reached and scrolled from the keyboard.
      for (const box of el.current?.querySelectorAll(".custom-scroll:not([tabindex])") ?? []) {
        box.setAttribute("tabindex", "0");
      }
    };
    const observer = new MutationObserver(demote);
    observer.observe(el.current, { childList: true, subtree: true });
    demote();
    return () => {
      observer.disconnect();
      reference.destroy();
    };
  }, [document]);
  return <div ref={el} className="api-reference" data-testid="api-reference" />;
}
