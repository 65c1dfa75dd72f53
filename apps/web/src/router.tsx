import { createBrowserRouter, Navigate, type RouteObject } from "react-router";
import { AppLayout } from "./components/app-layout.tsx";
import { RequireAuth } from "./components/require-auth.tsx";
import { lazyPage } from "./lib/lazy-page.ts";

// Each screen is its own chunk, loaded when its route is first shown (issue 14): the first
// load carries only the shell (AppLayout), not every page.
const AboutPage = lazyPage(() => import("./pages/about/about-page.tsx"), "AboutPage");
const AdminPage = lazyPage(() => import("./pages/admin/admin-page.tsx"), "AdminPage");
const BackupsPage = lazyPage(() => import("./pages/backups/backups-page.tsx"), "BackupsPage");
const BillingReturnPage = lazyPage(
  () => import("./pages/billing/billing-return-page.tsx"),
  "BillingReturnPage",
);
const BlogPage = lazyPage(() => import("./pages/blog/blog-page.tsx"), "BlogPage");
const CareersPage = lazyPage(() => import("./pages/careers/careers-page.tsx"), "CareersPage");
const ContactPage = lazyPage(() => import("./pages/contact/contact-page.tsx"), "ContactPage");
const CookiesPage = lazyPage(() => import("./pages/cookies/cookies-page.tsx"), "CookiesPage");
const DashboardPage = lazyPage(
  () => import("./pages/dashboard/dashboard-page.tsx"),
  "DashboardPage",
);
const DocsPage = lazyPage(() => import("./pages/docs/docs-page.tsx"), "DocsPage");
const HelpPage = lazyPage(() => import("./pages/help/help-page.tsx"), "HelpPage");
const LandingPage = lazyPage(() => import("./pages/landing/landing-page.tsx"), "LandingPage");
const ForgotPasswordPage = lazyPage(
  () => import("./pages/account/account-pages.tsx"),
  "ForgotPasswordPage",
);
const ResetPasswordPage = lazyPage(
  () => import("./pages/account/account-pages.tsx"),
  "ResetPasswordPage",
);
const VerifyEmailPage = lazyPage(
  () => import("./pages/account/account-pages.tsx"),
  "VerifyEmailPage",
);
const UnsubscribePage = lazyPage(
  () => import("./pages/account/account-pages.tsx"),
  "UnsubscribePage",
);
const StatusConfirmPage = lazyPage(
  () => import("./pages/account/account-pages.tsx"),
  "StatusConfirmPage",
);
const LoginPage = lazyPage(() => import("./pages/login/login-page.tsx"), "LoginPage");
const PressPage = lazyPage(() => import("./pages/press/press-page.tsx"), "PressPage");
const PricingPage = lazyPage(() => import("./pages/pricing/pricing-page.tsx"), "PricingPage");
const PrivacyPage = lazyPage(() => import("./pages/privacy/privacy-page.tsx"), "PrivacyPage");
const RegisterPage = lazyPage(() => import("./pages/register/register-page.tsx"), "RegisterPage");
const SecurityPage = lazyPage(() => import("./pages/security/security-page.tsx"), "SecurityPage");
const SettingsPage = lazyPage(() => import("./pages/settings/settings-page.tsx"), "SettingsPage");
const StatusPage = lazyPage(() => import("./pages/status/status-page.tsx"), "StatusPage");
const TermsPage = lazyPage(() => import("./pages/terms/terms-page.tsx"), "TermsPage");

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
      { path: "forgot-password", element: <ForgotPasswordPage /> },
      { path: "reset-password", element: <ResetPasswordPage /> },
      { path: "verify-email", element: <VerifyEmailPage /> },
      { path: "unsubscribe", element: <UnsubscribePage /> },
      { path: "status/confirm", element: <StatusConfirmPage /> },
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
          { path: "billing/return", element: <BillingReturnPage /> },
        ],
      },
      { path: "*", element: <Navigate to="/" replace /> },
    ],
  },
];

export function createRouter() {
  return createBrowserRouter(routes);
}
