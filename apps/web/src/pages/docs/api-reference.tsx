import { type createApiReference, ApiReference as ScalarApiReference } from "@scalar/api-reference";
import "@scalar/api-reference/style.css";
import { createHead } from "@unhead/vue/client";
import { useEffect, useRef } from "react";
import { createApp, h } from "vue";
import "./api-reference.css";

/**
 * The reference of /api/v1, rendered by Scalar from the OpenAPI document. This module is
 * loaded only by the /docs page (a chunk of its own), so no other page carries the renderer.
 *
 * Keepsake's docs show Keepsake's reference only: none of the vendor's own controls (its AI
 * agent, "Generate MCP", its API client, the "Powered by" footer). The first ones are turned off
 * in the configuration; the footer is the component's `sidebar-end` slot, which a mount through
 * `createApiReference` cannot fill, so the component is mounted here as that function does it.
 */
type Configuration = NonNullable<Parameters<typeof createApiReference>[1]>;

export function ApiReference({ document }: { document: Record<string, unknown> }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!el.current) return;
    const configuration: Configuration = {
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
      // The vendor's AI agent ("Ask AI Agent") and MCP generator ("Generate MCP"), which it
      // shows on local addresses even unconfigured.
      agent: { disabled: true },
      mcp: { disabled: true },
    };
    const reference = createApp(() =>
      h(
        ScalarApiReference,
        { configuration },
        // In place of the vendor's footer ("Powered by …"): nothing to show. An element, as an
        // empty slot would bring the footer back as its fallback.
        { "sidebar-end": () => h("span", { class: "api-reference-sidebar-end" }) },
      ),
    );
    reference.use(createHead());
    reference.config.idPrefix = "scalar-refs";
    reference.mount(el.current);
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
      reference.unmount();
    };
  }, [document]);
  return <div ref={el} className="api-reference" data-testid="api-reference" />;
}
