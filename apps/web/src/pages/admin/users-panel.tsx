import type { AdminUser } from "@keepsake/contracts";
import { adminDeleteConfirmation } from "@keepsake/contracts/admin-messages";
import { type ButtonHTMLAttributes, useEffect, useState } from "react";
import { errorStatus, useAdminAction, useAdminUsersQuery } from "../../api/admin.ts";
import { DataTable } from "../../components/data-table.tsx";
import { SearchField } from "../../components/form-field.tsx";
import { ConfirmDialog } from "../../components/modal.tsx";
import { Pagination } from "../../components/pagination.tsx";
import { Spinner } from "../../components/spinner.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useNavigate } from "../../lib/navigation.tsx";
import { pageCount } from "../../lib/pagination.ts";
import { toast } from "../../lib/toast.ts";
import { useDebouncedValue } from "../../lib/use-debounced-value.ts";
import { tierBadgeClass } from "./tier-badge.ts";

export const USERS_PAGE_SIZE = 25;
export const ACCESS_DENIED = "Access denied. Admin privileges required.";
/** In the admin's own row, instead of the actions the server refuses on oneself. */
export const OWN_ACCOUNT_NOTE =
  "This is your account: you cannot deactivate it, remove your own admin rights or delete it here.";

const USER_COLUMNS = [
  "User",
  "Status",
  "Subscription",
  "Token Expires",
  "Created",
  "Social Accounts",
  "Actions",
] as const;

/** A small button in a user's row: secondary, or red for the irreversible one. */
function RowAction({
  danger = false,
  ...button
}: ButtonHTMLAttributes<HTMLButtonElement> & { danger?: boolean }) {
  return (
    <button
      type="button"
      className={`btn ${danger ? "btn-danger" : "btn-secondary"} btn-sm`}
      {...button}
    />
  );
}

/** SPEC §2 /admin: every user, searchable and paged, with their actions. */
export function UsersPanel() {
  const navigate = useNavigate();
  const { user: me } = useAuth();
  const [search, setSearch] = useState("");
  const [page, setPage] = useState(1);
  const [deleting, setDeleting] = useState<AdminUser | null>(null);
  const settled = useDebouncedValue(search.trim(), 300);
  const query = useAdminUsersQuery({
    search: settled,
    limit: USERS_PAGE_SIZE,
    offset: (page - 1) * USERS_PAGE_SIZE,
  });
  const toggleAdmin = useAdminAction("toggle-admin");
  const toggleActive = useAdminAction("toggle-active");
  const remove = useAdminAction("delete");

  // SPEC §8: a 403 sends the user back to the dashboard; any other failure is a toast.
  const { error } = query;
  useEffect(() => {
    if (!error) return;
    if (errorStatus(error) === 403) {
      toast.error(ACCESS_DENIED);
      navigate("/dashboard", { replace: true });
    } else if (errorStatus(error) !== 401) {
      toast.error("Failed to fetch users");
    }
  }, [error, navigate]);

  const users = query.data?.users ?? [];
  const totalPages = pageCount(query.data?.total ?? 0, USERS_PAGE_SIZE);
  const busy = toggleAdmin.isPending || toggleActive.isPending || remove.isPending;

  return (
    <section className="card admin-panel" aria-label="Users">
      <div className="admin-toolbar">
        <SearchField
          id="admin-search"
          label="Search users"
          placeholder="Search by name or email..."
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setPage(1);
          }}
        />
        {query.data && (
          <span className="muted admin-count">
            {query.data.total} {query.data.total === 1 ? "user" : "users"}
          </span>
        )}
      </div>
      {query.isPending ? (
        <Spinner />
      ) : users.length === 0 ? (
        <p className="empty-state">No users found</p>
      ) : (
        <DataTable className="admin-table stack-narrow" columns={USER_COLUMNS}>
          {users.map((u) => (
            <tr key={u.id} data-email={u.email}>
              <td>
                <div className="admin-user-name">{u.full_name || "No name"}</div>
                <div className="muted admin-user-email">{u.email}</div>
              </td>
              <td data-label="Status">
                <span className={u.is_active ? "badge badge-success" : "badge badge-danger"}>
                  {u.is_active ? "Active" : "Inactive"}
                </span>
                {u.is_admin && <span className="badge badge-admin">Admin</span>}
              </td>
              <td data-label="Subscription">
                <span className={tierBadgeClass(u.subscription_tier)}>{u.subscription_tier}</span>
              </td>
              <td data-label="Token Expires">{formatDateTime(u.token_expires_at)}</td>
              <td data-label="Created">{formatDateTime(u.created_at)}</td>
              <td data-label="Social Accounts">{u.social_accounts?.length ?? 0}</td>
              <td>
                {u.id === me?.id ? (
                  <p className="muted admin-self-note">{OWN_ACCOUNT_NOTE}</p>
                ) : (
                  <div className="admin-actions">
                    <RowAction disabled={busy} onClick={() => toggleActive.mutate(u)}>
                      {u.is_active ? "Deactivate" : "Activate"}
                    </RowAction>
                    <RowAction disabled={busy} onClick={() => toggleAdmin.mutate(u)}>
                      {u.is_admin ? "Remove Admin" : "Make Admin"}
                    </RowAction>
                    <RowAction
                      danger
                      disabled={busy}
                      aria-label={`Delete ${u.email}`}
                      onClick={() => setDeleting(u)}
                    >
                      Delete
                    </RowAction>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pagination page={page} totalPages={totalPages} onChange={setPage} label="Users pages" />
      {deleting && (
        <ConfirmDialog
          title="Delete user"
          confirmLabel="Delete"
          busy={remove.isPending}
          onCancel={() => setDeleting(null)}
          onConfirm={() => remove.mutate(deleting, { onSettled: () => setDeleting(null) })}
        >
          <p>{adminDeleteConfirmation(deleting.email)}</p>
          <p className="muted">
            Everything Keepsake holds about this user is removed. Files in their Google Drive stay
            there.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
