import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { AppProviders, createQueryClient } from "./app.tsx";
import { AppRoutes } from "./router.tsx";
import "./styles/tokens.css";
import "./styles/base.css";
import "./styles/layout.css";
import "./styles/pages.css";

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
