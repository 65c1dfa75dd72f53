import type { ComponentType } from "react";
import { AppLayout } from "./components/app-layout.tsx";
import { ErrorBoundary } from "./components/error-boundary.tsx";
import { RequireAuth } from "./components/require-auth.tsx";
import { lazyPage } from "./lib/lazy-page.ts";
import { Navigate, Route, Switch } from "./lib/navigation.tsx";

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
const DataDeletionPage = lazyPage(
  () => import("./pages/account/data-deletion-page.tsx"),
  "DataDeletionPage",
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

/** Every route of SPEC §2 open to visitors: path → screen. */
const publicRoutes: Record<string, ComponentType> = {
  "/": LandingPage,
  "/pricing": PricingPage,
  "/login": LoginPage,
  "/register": RegisterPage,
  "/forgot-password": ForgotPasswordPage,
  "/reset-password": ResetPasswordPage,
  "/verify-email": VerifyEmailPage,
  "/unsubscribe": UnsubscribePage,
  "/status/confirm": StatusConfirmPage,
  "/data-deletion": DataDeletionPage,
  "/privacy": PrivacyPage,
  "/terms": TermsPage,
  "/help": HelpPage,
  "/contact": ContactPage,
  "/status": StatusPage,
  "/docs": DocsPage,
  "/cookies": CookiesPage,
  "/security": SecurityPage,
  "/about": AboutPage,
  "/blog": BlogPage,
  "/careers": CareersPage,
  "/press": PressPage,
};

/** The screens for signed-in users only (RequireAuth). */
const protectedRoutes: Record<string, ComponentType> = {
  "/dashboard": DashboardPage,
  "/backups": BackupsPage,
  "/settings": SettingsPage,
  "/admin": AdminPage,
  "/billing/return": BillingReturnPage,
};

/** Any protected path (one guard for all of them: it keeps its state between them). */
const protectedPattern = new RegExp(`^(?:${Object.keys(protectedRoutes).join("|")})/?$`, "i");

function routeList(table: Record<string, ComponentType>) {
  return Object.entries(table).map(([path, Page]) => (
    <Route key={path} path={path}>
      <Page />
    </Route>
  ));
}

/**
 * Every route of SPEC §2 inside the layout; an unknown path is replaced by `/`. An error while
 * rendering shows 'Unexpected Application Error!' and its message (SPEC §8).
 */
export function AppRoutes() {
  return (
    <ErrorBoundary>
      <AppLayout>
        <Switch>
          {routeList(publicRoutes)}
          <Route path={protectedPattern}>
            <RequireAuth>
              <Switch>{routeList(protectedRoutes)}</Switch>
            </RequireAuth>
          </Route>
          <Route>
            <Navigate to="/" replace />
          </Route>
        </Switch>
      </AppLayout>
    </ErrorBoundary>
  );
}
