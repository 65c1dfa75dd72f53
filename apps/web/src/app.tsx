import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ToastContainer } from "react-toastify";
import "react-toastify/dist/ReactToastify.css";
import { AuthProvider } from "./lib/auth.tsx";

/** SPEC §7: failed reads are retried once; no refetch on window focus. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: 1, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

/** SPEC §2 "Global behaviour" toasts: top right, dark, 5 s, at most 20. */
export function Toasts() {
  return (
    <ToastContainer
      position="top-right"
      theme="dark"
      autoClose={5000}
      closeOnClick
      pauseOnHover
      pauseOnFocusLoss
      limit={20}
      newestOnTop
      style={{ fontSize: "14px" }}
    />
  );
}

export function AppProviders({
  queryClient,
  children,
}: {
  queryClient: QueryClient;
  children: ReactNode;
}) {
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        {children}
        <Toasts />
      </AuthProvider>
    </QueryClientProvider>
  );
}
