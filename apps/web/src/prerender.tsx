/**
 * The landing page rendered to HTML at build time (scripts/build.ts): `/` is served as static
 * HTML with one tiny script (public/landing.js) instead of the whole app (issue 14). A visitor
 * sees it at once; links lead into the app; a signed-in user is sent on to /dashboard.
 */
import { QueryClientProvider } from "@tanstack/react-query";
import { renderToString } from "react-dom/server";
import { createQueryClient } from "./app.tsx";
import { AppLayout } from "./components/app-layout.tsx";
import { AuthContext, type AuthContextValue } from "./lib/auth.tsx";
import { Router } from "./lib/navigation.tsx";
import { LandingPage } from "./pages/landing/landing-page.tsx";

const unavailable = () => Promise.reject(new Error("not available in the prerendered page"));

/** The landing page as a visitor sees it. */
const visitor: AuthContextValue = {
  user: null,
  token: null,
  isLoading: false,
  isAuthenticated: false,
  login: unavailable,
  register: unavailable,
  logout: unavailable,
  refreshUser: unavailable,
  forget: () => {},
  signedOutTo: null,
};

export function renderLanding(): string {
  return renderToString(
    <QueryClientProvider client={createQueryClient()}>
      <AuthContext.Provider value={visitor}>
        <Router ssrPath="/" ssrSearch="">
          <AppLayout>
            <LandingPage />
          </AppLayout>
        </Router>
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
}
