import { useEffect } from "react";
import { useLocation } from "../lib/navigation.tsx";

/** Scrolls to the top on page change, or to the anchor when the URL has one. */
export function ScrollToTop() {
  const { pathname, hash } = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every page change
  useEffect(() => {
    if (hash) {
      document.getElementById(hash.slice(1))?.scrollIntoView();
      return;
    }
    if (typeof window.scrollTo === "function" && !navigator.userAgent.includes("jsdom")) {
      window.scrollTo(0, 0);
    }
  }, [pathname, hash]);
  return null;
}
