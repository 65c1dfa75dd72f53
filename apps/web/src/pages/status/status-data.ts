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
