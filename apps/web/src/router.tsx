import { createBrowserRouter, Navigate, type RouteObject } from "react-router";
import { AppLayout } from "./components/app-layout.tsx";
import { RequireAuth } from "./components/require-auth.tsx";
import { AboutPage } from "./pages/about/about-page.tsx";
import { AdminPage } from "./pages/admin/admin-page.tsx";
import { BackupsPage } from "./pages/backups/backups-page.tsx";
import { BlogPage } from "./pages/blog/blog-page.tsx";
import { CareersPage } from "./pages/careers/careers-page.tsx";
import { ContactPage } from "./pages/contact/contact-page.tsx";
import { CookiesPage } from "./pages/cookies/cookies-page.tsx";
import { DashboardPage } from "./pages/dashboard/dashboard-page.tsx";
import { DocsPage } from "./pages/docs/docs-page.tsx";
import { HelpPage } from "./pages/help/help-page.tsx";
import { LandingPage } from "./pages/landing/landing-page.tsx";
import { LoginPage } from "./pages/login/login-page.tsx";
import { PressPage } from "./pages/press/press-page.tsx";
import { PricingPage } from "./pages/pricing/pricing-page.tsx";
import { PrivacyPage } from "./pages/privacy/privacy-page.tsx";
import { RegisterPage } from "./pages/register/register-page.tsx";
import { SecurityPage } from "./pages/security/security-page.tsx";
import { SettingsPage } from "./pages/settings/settings-page.tsx";
import { StatusPage } from "./pages/status/status-page.tsx";
import { TermsPage } from "./pages/terms/terms-page.tsx";

/**
 * Every route of SPEC §2. No custom errorElement: React Router's default screen
 * ('Unexpected Application Error!', SPEC §8) stays.
 */
export const routes: RouteObject[] = [
  {
    path: "/",
    element: <AppLayout />,
    children: [
      { index: true, element: <LandingPage /> },
      { path: "pricing", element: <PricingPage /> },
      { path: "login", element: <LoginPage /> },
      { path: "register", element: <RegisterPage /> },
      { path: "privacy", element: <PrivacyPage /> },
      { path: "terms", element: <TermsPage /> },
      { path: "help", element: <HelpPage /> },
      { path: "contact", element: <ContactPage /> },
      { path: "status", element: <StatusPage /> },
      { path: "docs", element: <DocsPage /> },
      { path: "cookies", element: <CookiesPage /> },
      { path: "security", element: <SecurityPage /> },
      { path: "about", element: <AboutPage /> },
      { path: "blog", element: <BlogPage /> },
      { path: "careers", element: <CareersPage /> },
      { path: "press", element: <PressPage /> },
      {
        element: <RequireAuth />,
        children: [
          { path: "dashboard", element: <DashboardPage /> },
          { path: "backups", element: <BackupsPage /> },
          { path: "settings", element: <SettingsPage /> },
          { path: "admin", element: <AdminPage /> },
        ],
      },
      { path: "*", element: <Navigate to="/" replace /> },
    ],
  },
];

export function createRouter() {
  return createBrowserRouter(routes);
}
