// The notifications area's public surface: what other areas and the composition root may import.
export { createAlertResolution } from "./alert-resolution.ts";
export { alertsCheckJob, weeklyDigestJob } from "./alerts.jobs.ts";
export type { Alerts } from "./alerts.ts";
export { createAlerts } from "./alerts.ts";
export { createNotificationsRepository } from "./notifications.repository.ts";
export { registerNotificationRoutes } from "./notifications.routes.ts";
export type { NotificationsService } from "./notifications.service.ts";
export { createNotificationsService } from "./notifications.service.ts";
