import { type KeyboardEvent, Suspense, useRef } from "react";
import { PageHeader } from "../../components/page-header.tsx";
import { Spinner } from "../../components/spinner.tsx";
import { lazyPage } from "../../lib/lazy-page.ts";
import { useSearchParams } from "../../lib/navigation.tsx";
import { ConnectedAccountsTab } from "./connected-accounts-tab.tsx";
import "./settings.css";
import { useDestinationReturn } from "./use-destination-return.ts";

// Connected Accounts is the tab /settings opens on; every other tab is its own chunk, loaded
// when it is opened (the import screen's carries the ZIP reader).
const SubscriptionTab = lazyPage(() => import("./subscription-tab.tsx"), "SubscriptionTab");
const ProfileTab = lazyPage(() => import("./profile-tab.tsx"), "ProfileTab");
const NotificationsTab = lazyPage(() => import("./notifications-tab.tsx"), "NotificationsTab");
const ApiKeysTab = lazyPage(() => import("./api-keys-tab.tsx"), "ApiKeysTab");
const ImportTab = lazyPage(() => import("./import-tab.tsx"), "ImportTab");

export const SETTINGS_TABS = [
  { id: "connections", label: "Connected Accounts" },
  { id: "subscription", label: "Subscription" },
  { id: "profile", label: "Profile Information" },
  { id: "notifications", label: "Notifications" },
  { id: "api-keys", label: "API keys" },
  { id: "import", label: "Import" },
] as const;
type TabId = (typeof SETTINGS_TABS)[number]["id"];

/** SPEC §2 /settings: its three tabs and API keys (issue 11); `?tab=` selects one so links can point at a tab. */
export function SettingsPage() {
  const [params, setParams] = useSearchParams();
  const requested = params.get("tab");
  const active: TabId = SETTINGS_TABS.some((t) => t.id === requested)
    ? (requested as TabId)
    : "connections";
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  useDestinationReturn();

  const select = (id: TabId) => setParams(id === "connections" ? {} : { tab: id });
  const onKeyDown = (e: KeyboardEvent, index: number) => {
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    const next = (index + step + SETTINGS_TABS.length) % SETTINGS_TABS.length;
    select(SETTINGS_TABS[next]!.id);
    tabs.current[next]?.focus();
  };

  return (
    <div className="container page">
      <PageHeader title="Settings" subtitle="Manage your connections, plan and profile" />
      <div className="tab-bar settings-tabs" role="tablist" aria-label="Settings">
        {SETTINGS_TABS.map((tab, i) => (
          <button
            key={tab.id}
            ref={(el) => {
              tabs.current[i] = el;
            }}
            id={`settings-tab-${tab.id}`}
            role="tab"
            aria-selected={active === tab.id}
            aria-controls={`settings-panel-${tab.id}`}
            tabIndex={active === tab.id ? 0 : -1}
            className={`tab settings-tab${active === tab.id ? " tab-active" : ""}`}
            onClick={() => select(tab.id)}
            onKeyDown={(e) => onKeyDown(e, i)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div
        id={`settings-panel-${active}`}
        role="tabpanel"
        aria-labelledby={`settings-tab-${active}`}
        className="settings-panel"
      >
        {active === "connections" && <ConnectedAccountsTab />}
        <Suspense fallback={<Spinner label="Loading..." />}>
          {active === "subscription" && <SubscriptionTab />}
          {active === "profile" && <ProfileTab />}
          {active === "notifications" && <NotificationsTab />}
          {active === "api-keys" && <ApiKeysTab />}
          {active === "import" && <ImportTab />}
        </Suspense>
      </div>
    </div>
  );
}
