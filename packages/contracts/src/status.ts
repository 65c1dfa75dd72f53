import { z } from "zod";
import { EMAIL_PATTERN } from "./auth.ts";
import { DESTINATION_KINDS } from "./destinations.ts";

export const componentStatus = z.enum(["operational", "degraded", "down"]);
export type ComponentStatus = z.infer<typeof componentStatus>;

/** SPEC §3 "Status service entry", from live health data. */
export const statusComponent = z.object({
  id: z.string(),
  name: z.string(),
  status: componentStatus,
  /** Why, in words (e.g. "3 of 40 calls failed in the last 15 minutes"). */
  detail: z.string(),
  /** Percentage of the last 90 days' samples in which it was not down; null before any sample. */
  uptime: z.number().nullable(),
  /**
   * The backup destination this component serves (issue 38): "google_drive" on the Google Drive
   * API's; "dropbox", "onedrive" or "s3" on those destinations' components, which are listed
   * only once Keepsake has called them in the last day. Absent on the other components.
   */
  destination: z.enum(DESTINATION_KINDS).optional(),
});
export type StatusComponent = z.infer<typeof statusComponent>;

/** SPEC §3 "Incident". */
export const statusIncident = z.object({
  id: z.string(),
  component: z.string(),
  date: z.string(),
  title: z.string(),
  description: z.string(),
  status: z.enum(["resolved", "ongoing"]),
  duration: z.string(),
});
export type StatusIncident = z.infer<typeof statusIncident>;

export const statusResponse = z.object({
  status: componentStatus,
  checked_at: z.string(),
  components: z.array(statusComponent),
  incidents: z.array(statusIncident),
});
export type StatusResponse = z.infer<typeof statusResponse>;

export const statusSubscribeRequest = z.object({
  email: z
    .string({ error: "Email is required" })
    .trim()
    .min(1, "Email is required")
    .max(254, "Email must be at most 254 characters")
    .regex(EMAIL_PATTERN, "Invalid email address")
    .transform((v) => v.toLowerCase()),
});
export type StatusSubscribeRequest = z.input<typeof statusSubscribeRequest>;

export const statusSubscribeResponse = z.object({ message: z.string() });
export type StatusSubscribeResponse = z.infer<typeof statusSubscribeResponse>;

/** SPEC §4: operational only if every component is. */
export function overallStatus(components: readonly { status: ComponentStatus }[]): ComponentStatus {
  if (components.some((c) => c.status === "down")) return "down";
  if (components.some((c) => c.status === "degraded")) return "degraded";
  return "operational";
}
