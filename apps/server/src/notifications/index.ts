// The notifications area's public surface: what other areas and the composition root may import.

export { NOTIFICATION_TEMPLATES } from "./alerts/registry.ts";
export { alertsCheckJob, weeklyDigestJob } from "./alerts.jobs.ts";
export type { Alerts } from "./alerts.ts";
export { createNotificationsModule } from "./notifications.module.ts";
export type { NotificationsService } from "./notifications.service.ts";
