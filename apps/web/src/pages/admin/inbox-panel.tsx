import { useState } from "react";
import { useInboxQuery, useMarkHandledMutation } from "../../api/contact.ts";
import { Pagination } from "../../components/pagination.tsx";
import { Spinner } from "../../components/spinner.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { pageCount } from "../../lib/pagination.ts";

const INBOX_PAGE_SIZE = 25;

/** Messages sent through /contact, newest first: open one, reply by e-mail, mark it handled. */
export function InboxPanel() {
  const [page, setPage] = useState(1);
  const [openId, setOpenId] = useState<string | null>(null);
  const query = useInboxQuery(INBOX_PAGE_SIZE, (page - 1) * INBOX_PAGE_SIZE);
  const markHandled = useMarkHandledMutation();
  const messages = query.data?.messages ?? [];

  if (query.isPending) return <Spinner />;
  if (query.isError) return <p className="empty-state">Failed to load messages</p>;

  return (
    <section className="card admin-panel" aria-label="Inbox">
      <p className="muted">
        {query.data.unhandled} unhandled of {query.data.total}{" "}
        {query.data.total === 1 ? "message" : "messages"}
      </p>
      {messages.length === 0 ? (
        <p className="empty-state">No messages yet</p>
      ) : (
        <ul className="inbox-list">
          {messages.map((m) => {
            const open = openId === m.id;
            return (
              <li key={m.id} className={`inbox-item${m.handled_at ? " inbox-handled" : ""}`}>
                <button
                  type="button"
                  className="inbox-summary"
                  aria-expanded={open}
                  aria-controls={`message-${m.id}`}
                  onClick={() => setOpenId(open ? null : m.id)}
                >
                  <span className="inbox-subject">{m.subject}</span>
                  <span className="muted inbox-from">
                    {m.name} &lt;{m.email}&gt;
                  </span>
                  <span className="muted inbox-date">{formatDateTime(m.created_at)}</span>
                  <span className={m.handled_at ? "badge badge-success" : "badge badge-warning"}>
                    {m.handled_at ? "Handled" : "New"}
                  </span>
                </button>
                {open && (
                  <div id={`message-${m.id}`} className="inbox-body">
                    <p className="inbox-text">{m.message}</p>
                    <div className="admin-actions">
                      <a
                        className="btn btn-secondary btn-sm"
                        href={`mailto:${m.email}?subject=${encodeURIComponent(`Re: ${m.subject}`)}`}
                      >
                        Reply by email
                      </a>
                      {m.handled_at ? (
                        <span className="muted">Handled {formatDateTime(m.handled_at)}</span>
                      ) : (
                        <button
                          type="button"
                          className="btn btn-primary btn-sm"
                          disabled={markHandled.isPending}
                          onClick={() => markHandled.mutate(m)}
                        >
                          Mark as handled
                        </button>
                      )}
                    </div>
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <Pagination
        page={page}
        totalPages={pageCount(query.data.total, INBOX_PAGE_SIZE)}
        onChange={setPage}
        label="Inbox pages"
      />
    </section>
  );
}
