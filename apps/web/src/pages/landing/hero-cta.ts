import type { OAuthStatus, User } from "@keepsake/contracts";

export interface Cta {
  label: string;
  to: string;
}

/** SPEC §2 "/": the main button for a visitor, a user still connecting, and a ready user. */
export function heroCta(
  user: User | null,
  status: Pick<OAuthStatus, "instagram_connected" | "google_connected"> | undefined,
): Cta {
  if (!user) return { label: "Start Backing Up Free", to: "/register" };
  if (status?.instagram_connected && status.google_connected) {
    return { label: "Go to Dashboard", to: "/dashboard" };
  }
  return { label: "Connect Your Accounts", to: "/settings" };
}
