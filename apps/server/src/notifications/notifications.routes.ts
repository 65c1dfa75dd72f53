import {
  markAllReadResponse,
  notificationPreferences,
  notificationsResponse,
  setNotificationPreference,
  unreadCountResponse,
} from "@keepsake/contracts";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { type AuthGuards, principalOf } from "../auth/index.ts";
import type { NotificationsService } from "./notifications.service.ts";

/** What these routes use of the application. */
export interface NotificationsRouteDeps {
  notifications: NotificationsService;
  guards: AuthGuards;
}

/** The bell (list, unread count, mark read) and Settings → Notifications. */
export function registerNotificationRoutes(app: FastifyInstance, ctx: NotificationsRouteDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { notifications, guards } = ctx;
  const onRequest = guards.requireUser;
  const tags = ["notifications"];
  const user = (req: Parameters<typeof principalOf>[0]) => principalOf(req).user.id;

  r.get(
    "/api/notifications",
    {
      onRequest,
      schema: {
        tags,
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(100).default(30) }),
        response: { 200: notificationsResponse },
      },
    },
    async (req) => notifications.list(user(req), req.query.limit),
  );

  r.get(
    "/api/notifications/unread-count",
    { onRequest, schema: { tags, response: { 200: unreadCountResponse } } },
    async (req) => ({ unread: await notifications.unreadCount(user(req)) }),
  );

  r.post(
    "/api/notifications/:id/read",
    {
      onRequest,
      schema: { tags, params: z.object({ id: z.uuid() }), response: { 200: unreadCountResponse } },
    },
    async (req) => notifications.markRead(user(req), req.params.id),
  );

  r.post(
    "/api/notifications/read-all",
    { onRequest, schema: { tags, response: { 200: markAllReadResponse } } },
    async (req) => notifications.markAllRead(user(req)),
  );

  r.get(
    "/api/notifications/preferences",
    { onRequest, schema: { tags, response: { 200: notificationPreferences } } },
    async (req) => notifications.preferences(user(req)),
  );

  r.put(
    "/api/notifications/preferences",
    {
      onRequest,
      schema: { tags, body: setNotificationPreference, response: { 200: notificationPreferences } },
    },
    async (req) => notifications.setPreference(user(req), req.body.category, req.body.enabled),
  );
}
