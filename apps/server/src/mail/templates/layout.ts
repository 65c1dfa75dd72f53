import { createElement as h, type ReactNode } from "react";

/**
 * Keepsake's look for e-mail: the brand's purple, a white card on a soft background, and the
 * footer that says why the person got the message (and how to stop it, when they can). Plain
 * React elements with inline styles, which every mail client understands; rendered to HTML and
 * to text by @react-email/render (templates/render.ts).
 */
export const COLORS = {
  bg: "#f8f7fc",
  card: "#ffffff",
  border: "#e6e3f0",
  text: "#17142b",
  muted: "#5b5775",
  primary: "#6d28d9",
} as const;

const FONT = '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif';

export interface LayoutProps {
  preview: string;
  children?: ReactNode;
  /** Why the person got this e-mail. */
  why: string;
  /** The unsubscribe link of a non-essential category. */
  unsubscribeUrl?: string | undefined;
  appUrl: string;
}

export function Layout(props: LayoutProps) {
  return h(
    "html",
    { lang: "en" },
    h(
      "head",
      null,
      h("meta", { httpEquiv: "Content-Type", content: "text/html; charset=UTF-8" }),
      h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
    ),
    h(
      "body",
      { style: { margin: 0, padding: "24px 0", background: COLORS.bg, fontFamily: FONT } },
      h(
        "div",
        {
          style: { display: "none", overflow: "hidden", maxHeight: 0, opacity: 0 },
          "data-skip-in-text": true,
        },
        props.preview,
      ),
      h(
        "table",
        {
          role: "presentation",
          width: "100%",
          cellPadding: 0,
          cellSpacing: 0,
          style: { maxWidth: 560, margin: "0 auto" },
        },
        h(
          "tbody",
          null,
          h(
            "tr",
            null,
            h(
              "td",
              { style: { padding: "0 24px 16px" } },
              h(
                "a",
                {
                  href: props.appUrl,
                  style: {
                    color: COLORS.primary,
                    fontSize: 22,
                    fontWeight: 700,
                    textDecoration: "none",
                  },
                },
                "Keepsake",
              ),
            ),
          ),
          h(
            "tr",
            null,
            h(
              "td",
              {
                style: {
                  background: COLORS.card,
                  border: `1px solid ${COLORS.border}`,
                  borderRadius: 12,
                  padding: "28px 32px",
                  color: COLORS.text,
                  fontSize: 15,
                  lineHeight: "24px",
                },
              },
              props.children,
            ),
          ),
          h(
            "tr",
            null,
            h(
              "td",
              {
                style: {
                  padding: "16px 24px",
                  color: COLORS.muted,
                  fontSize: 12,
                  lineHeight: "18px",
                },
              },
              h("p", { style: { margin: "0 0 6px" } }, props.why),
              props.unsubscribeUrl
                ? h(
                    "p",
                    { style: { margin: "0 0 6px" } },
                    "Don't want these e-mails? ",
                    h(
                      "a",
                      { href: props.unsubscribeUrl, style: { color: COLORS.muted } },
                      "Unsubscribe",
                    ),
                    ".",
                  )
                : null,
              h(
                "p",
                { style: { margin: 0 } },
                "Keepsake — your Instagram work, safe in your own Google Drive.",
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

export function Heading({ children }: { children?: ReactNode }) {
  return h(
    "h1",
    { style: { fontSize: 20, lineHeight: "28px", margin: "0 0 16px", color: COLORS.text } },
    children,
  );
}

export function P({ children }: { children?: ReactNode }) {
  return h("p", { style: { margin: "0 0 16px" } }, children);
}

export function Button({ href, children }: { href: string; children?: ReactNode }) {
  return h(
    "p",
    { style: { margin: "8px 0 20px" } },
    h(
      "a",
      {
        href,
        style: {
          display: "inline-block",
          background: COLORS.primary,
          color: "#ffffff",
          padding: "12px 22px",
          borderRadius: 8,
          fontWeight: 600,
          textDecoration: "none",
        },
      },
      children,
    ),
  );
}

/** A link spelled out under a button, for clients that do not show buttons. */
export function LinkLine({ href }: { href: string }) {
  return h(
    "p",
    { style: { margin: "0 0 16px", fontSize: 13, color: COLORS.muted, wordBreak: "break-all" } },
    "Or paste this link into your browser: ",
    h("a", { href, style: { color: COLORS.primary } }, href),
  );
}

/** A quoted block (a contact message, an incident's description). */
export function Quote({ children }: { children?: ReactNode }) {
  return h(
    "div",
    {
      style: {
        borderLeft: `3px solid ${COLORS.border}`,
        padding: "4px 0 4px 12px",
        margin: "0 0 16px",
        color: COLORS.muted,
        whiteSpace: "pre-wrap",
      },
    },
    children,
  );
}
