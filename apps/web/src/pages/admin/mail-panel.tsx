import type { MailStatus } from "@keepsake/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { fetchOutbox } from "../../api/mail.ts";
import { Pagination } from "../../components/pagination.tsx";
import { Spinner } from "../../components/spinner.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { pageCount } from "../../lib/pagination.ts";

const PAGE_SIZE = 25;
const FILTERS: { id: MailStatus | "all"; label: string }[] = [
  { id: "all", label: "All" },
  { id: "sent", label: "Sent" },
  { id: "failed", label: "Failed" },
  { id: "queued", label: "Waiting" },
];
const BADGE: Record<MailStatus, string> = {
  sent: "badge badge-success",
  failed: "badge badge-danger",
  queued: "badge badge-warning",
  sending: "badge badge-warning",
};

/** Admin → Mail: every message Keepsake sent or tries to send, and why one failed. */
export function MailPanel() {
  const [filter, setFilter] = useState<MailStatus | "all">("all");
  const [page, setPage] = useState(1);
  const query = useQuery({
    queryKey: ["admin", "mail", filter, page],
    queryFn: () =>
      fetchOutbox({
        limit: PAGE_SIZE,
        offset: (page - 1) * PAGE_SIZE,
        ...(filter === "all" ? {} : { status: filter }),
      }),
    placeholderData: keepPreviousData,
  });
  if (query.isPending) return <Spinner />;
  if (query.isLoadingError) return <p className="empty-state">Failed to load the outbox</p>;
  const { counts, messages } = query.data;
  const total =
    filter === "all"
      ? counts.sent + counts.failed + counts.queued + counts.sending
      : counts[filter] + (filter === "queued" ? counts.sending : 0);
  return (
    <section className="card admin-panel" aria-label="Mail">
      <p className="muted">
        {counts.sent} sent · {counts.failed} failed · {counts.queued + counts.sending} waiting
      </p>
      <div className="admin-actions">
        {FILTERS.map((f) => (
          <button
            key={f.id}
            className={filter === f.id ? "btn btn-primary btn-sm" : "btn btn-secondary btn-sm"}
            aria-pressed={filter === f.id}
            onClick={() => {
              setFilter(f.id);
              setPage(1);
            }}
          >
            {f.label}
          </button>
        ))}
      </div>
      {messages.length === 0 ? (
        <p className="empty-state">No mail yet</p>
      ) : (
        <div className="table-wrap">
          <table className="data-table stack-narrow">
            <thead>
              <tr>
                <th>To</th>
                <th>Subject</th>
                <th>Category</th>
                <th>Status</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {messages.map((m) => (
                <tr key={m.id}>
                  <td data-label="To">{m.to}</td>
                  <td data-label="Subject">{m.subject}</td>
                  <td data-label="Category">{m.category}</td>
                  <td data-label="Status">
                    <span className={BADGE[m.status]}>{m.status}</span>
                    {m.attempts > 1 && <span className="muted"> · {m.attempts} attempts</span>}
                    {m.error && m.status !== "sent" && <div className="mail-error">{m.error}</div>}
                  </td>
                  <td data-label="Created">{formatDateTime(m.sent_at ?? m.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pagination
        page={page}
        totalPages={pageCount(total, PAGE_SIZE)}
        onChange={setPage}
        label="Mail pages"
      />
    </section>
  );
}
