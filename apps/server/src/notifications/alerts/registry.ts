import type { AlertMailData, NamedTemplate } from "../../mail/index.ts";
import { backupFailuresAlert } from "./backup-failures.alert.ts";
import { billingAlert } from "./billing.alert.ts";
import { connectionAlert } from "./connection.alert.ts";
import type { AlertDefinition } from "./define.ts";
import { driveFullAlert } from "./drive-full.alert.ts";
import { storiesAlert } from "./stories.alert.ts";
import { syncStaleAlert } from "./sync-stale.alert.ts";
import { digestKind } from "./weekly-digest.ts";

/**
 * Every kind of alert, one file each in this folder (`<name>.alert.ts`: its mail category and
 * template, the hooks and checks that detect it, its words, how it resolves). To add an alert:
 * write its file with `defineAlert` and list it here. Settings → Notifications shows their
 * categories in this order (the digest last).
 */
export const alertRegistry: readonly AlertDefinition[] = [
  connectionAlert,
  backupFailuresAlert,
  driveFullAlert,
  syncStaleAlert,
  storiesAlert,
  billingAlert,
];

/** The categories Settings → Notifications shows, in its order. */
export const NOTIFICATION_CATEGORIES: readonly string[] = [
  ...alertRegistry.map((a) => a.kind.category.key),
  digestKind.category.key,
];

/** Each category's toggle in Settings → Notifications: its name and what it covers. */
export const NOTIFICATION_CATEGORY_TEXT: Readonly<
  Record<string, { label: string; description: string }>
> = Object.fromEntries(
  [...alertRegistry.map((a) => a.kind), digestKind].map((k) => [k.category.key, k.setting]),
);

/** The e-mail templates of the alerts and the digest, registered with the mail area at wiring. */
export const NOTIFICATION_TEMPLATES: readonly NamedTemplate<AlertMailData>[] = [
  ...alertRegistry.map((a) => a.kind.template),
  digestKind.template,
];
