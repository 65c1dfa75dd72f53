import type { ComponentStatus } from "@keepsake/contracts";

/** SPEC §2 banner: operational only if every component is. */
export function bannerOf(list: readonly { status: ComponentStatus }[]): {
  operational: boolean;
  label: string;
} {
  const operational = list.every((s) => s.status === "operational");
  return {
    operational,
    label: operational ? "All Systems Operational" : "Some Systems Degraded",
  };
}

export const stateLabel: Record<ComponentStatus, string> = {
  operational: "Operational",
  degraded: "Degraded",
  down: "Down",
};

/** 99.95 → "99.95% uptime"; before the first sample there is no figure yet. */
export function uptimeLabel(uptime: number | null): string {
  return uptime === null ? "No uptime data yet" : `${uptime}% uptime (90 days)`;
}

/**
 * Keepsake's own services apart from the backup destinations (the components that name one,
 * issue 38), each in the order the server lists them. An answer without `destination` (an older
 * server) lists everything as a service.
 */
export function groupComponents<T extends { destination?: string | undefined }>(
  list: readonly T[],
): { services: T[]; destinations: T[] } {
  return {
    services: list.filter((c) => c.destination === undefined),
    destinations: list.filter((c) => c.destination !== undefined),
  };
}
