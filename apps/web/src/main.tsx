import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { AppProviders, createQueryClient } from "./app.tsx";
import { AppRoutes } from "./router.tsx";
// Every style the shell and the public pages use, in cascade order. Each file sits beside what it
// styles, but loads here rather than with its screen: the prerendered landing page links only this
// stylesheet, and later rules here win over earlier ones (a screen's own stylesheet loads after).
import "./styles/tokens.css";
import "./styles/base.css";
import "./components/site-header.css";
import "./components/site-footer.css";
import "./styles/layout.css";
import "./components/notification-bell.css";
import "./components/auth-card.css";
import "./styles/sections.css";
import "./pages/landing/landing.css";
import "./pages/landing/landing-sections.css";
import "./pages/pricing/pricing.css";
import "./components/faq-section.css";
import "./components/static-page.css";
import "./pages/contact/contact.css";
import "./pages/status/status.css";

const container = document.getElementById("root");
if (!container) throw new Error("#root is missing from index.html");

const queryClient = createQueryClient();

createRoot(container).render(
  <StrictMode>
    <AppProviders queryClient={queryClient}>
      <AppRoutes />
    </AppProviders>
  </StrictMode>,
);
