import { lazy, type ReactNode, Suspense } from "react";
import { ScrollToTop } from "./scroll-to-top.tsx";
import { SiteFooter } from "./site-footer.tsx";
import { SiteHeader } from "./site-header.tsx";

// Only signed-in users with an unverified address see it: loaded after the page.
const VerifyBanner = lazy(() =>
  import("./verify-banner.tsx").then((m) => ({ default: m.VerifyBanner })),
);

/** The common layout of every screen: navigation, the page, the footer. */
export function AppLayout({ children }: { children: ReactNode }) {
  return (
    <div className="app">
      <ScrollToTop />
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <SiteHeader />
      <Suspense fallback={null}>
        <VerifyBanner />
      </Suspense>
      <main id="main" className="app-main">
        {/* A screen's chunk is loading: keep the page's height so the footer does not jump. */}
        <Suspense fallback={<div className="route-loading" aria-busy="true" />}>
          {children}
        </Suspense>
      </main>
      <SiteFooter />
    </div>
  );
}
