import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useSyncExternalStore } from "react";
import { AuthProvider } from "./lib/auth.tsx";
import { toastLibrary } from "./lib/toast.ts";

/** SPEC §7: failed reads are retried once; no refetch on window focus. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: 1, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

/**
 * SPEC §2 "Global behaviour" toasts (top right, dark, 5 s, at most 20): the container appears
 * with the toast library, on the first toast (lib/toast.ts).
 */
export function Toasts() {
  const library = useSyncExternalStore(toastLibrary.subscribe, toastLibrary.get, () => null);
  return library ? <library.ToastsContainer /> : null;
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
