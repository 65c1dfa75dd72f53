import { PageHeader } from "../../components/page-header.tsx";

/** The admin area; the user table arrives with the admin issue. */
export function AdminPage() {
  return (
    <div className="container page">
      <PageHeader title="Admin Dashboard" subtitle="Manage all users and their permissions" />
    </div>
  );
}
