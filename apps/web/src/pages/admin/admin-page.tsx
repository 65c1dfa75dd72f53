import { PageHeader } from "../../components/page-header.tsx";
import { UsersPanel } from "./users-panel.tsx";
import "./admin.css";

/** SPEC §2 /admin. The server answers 403 to non-admins; the panel turns that into a redirect. */
export function AdminPage() {
  return (
    <div className="container page">
      <PageHeader title="Admin Dashboard" subtitle="Manage all users and their permissions" />
      <UsersPanel />
    </div>
  );
}
