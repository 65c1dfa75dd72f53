// The notifications area's public surface: what other areas and the composition root may import.
export { alertsCheckJob, weeklyDigestJob } from "./alerts.jobs.ts";
export type { Alerts } from "./alerts.ts";
export { createNotificationsModule } from "./notifications.module.ts";
export type { NotificationsService } from "./notifications.service.ts";
