export type ServiceState = "operational" | "degraded" | "down";

export interface Service {
  name: string;
  status: ServiceState;
  uptime: string;
}

export interface Incident {
  date: string;
  title: string;
  description: string;
  status: string;
  duration: string;
}

/** SPEC §2 /status and §9: every figure on the status page is fixed. */
export const services: Service[] = [
  { name: "Web Application", status: "operational", uptime: "99.9%" },
  { name: "Instagram Sync", status: "operational", uptime: "99.8%" },
  { name: "Google Drive Backup", status: "operational", uptime: "99.9%" },
  { name: "Authentication", status: "operational", uptime: "100%" },
  { name: "API", status: "operational", uptime: "99.9%" },
];

export const incidents: Incident[] = [
  {
    date: "January 12, 2026",
    title: "Scheduled database maintenance",
    description:
      "Planned maintenance to upgrade our database infrastructure. Backups were paused and resumed automatically afterwards.",
    status: "resolved",
    duration: "2 hours",
  },
];

/** SPEC §4: overall operational only if every service is. */
export function overallStatus(list: readonly Pick<Service, "status">[]): {
  operational: boolean;
  label: string;
} {
  const operational = list.every((s) => s.status === "operational");
  return {
    operational,
    label: operational ? "All Systems Operational" : "Some Systems Degraded",
  };
}

export const stateLabel: Record<ServiceState, string> = {
  operational: "Operational",
  degraded: "Degraded",
  down: "Down",
};
