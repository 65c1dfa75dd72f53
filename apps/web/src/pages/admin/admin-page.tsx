import { PageHeader } from "../../components/page-header.tsx";
import { useSearchParams } from "../../lib/navigation.tsx";
import { InboxPanel } from "./inbox-panel.tsx";
import { MailPanel } from "./mail-panel.tsx";
import { UsersPanel } from "./users-panel.tsx";
import "./admin.css";

const TABS = [
  { id: "users", label: "Users" },
  { id: "inbox", label: "Inbox" },
  { id: "mail", label: "Mail" },
] as const;

/**
 * SPEC §2 /admin. The server answers 403 to non-admins; the users panel turns that into a
 * redirect. `?tab=inbox` opens the contact messages.
 */
export function AdminPage() {
  const [params, setParams] = useSearchParams();
  const tab = params.get("tab");
  const active = tab === "inbox" || tab === "mail" ? tab : "users";
  return (
    <div className="container page">
      <PageHeader title="Admin Dashboard" subtitle="Manage all users and their permissions" />
      <div className="tab-bar admin-tabs" role="tablist" aria-label="Admin">
        {TABS.map((tab) => (
          <button
            key={tab.id}
            id={`admin-tab-${tab.id}`}
            type="button"
            role="tab"
            aria-selected={active === tab.id}
            aria-controls={`admin-panel-${tab.id}`}
            className={active === tab.id ? "tab tab-active" : "tab"}
            onClick={() => setParams(tab.id === "users" ? {} : { tab: tab.id })}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div id={`admin-panel-${active}`} role="tabpanel" aria-labelledby={`admin-tab-${active}`}>
        {active === "users" ? <UsersPanel /> : active === "inbox" ? <InboxPanel /> : <MailPanel />}
      </div>
    </div>
  );
}
