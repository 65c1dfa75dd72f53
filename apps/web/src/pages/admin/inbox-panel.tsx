import { useState } from "react";
import { useInboxQuery, useMarkHandledMutation, useReplyMutation } from "../../api/contact.ts";
import { Pagination } from "../../components/pagination.tsx";
import { Spinner } from "../../components/spinner.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { pageCount } from "../../lib/pagination.ts";

const INBOX_PAGE_SIZE = 25;

const MAIL_STATUS: Record<string, string> = {
  queued: "Sending",
  sending: "Sending",
  sent: "Sent",
  failed: "Not delivered",
};

/** The reply box of an open message: sent by mail from Keepsake and kept with the message. */
function ReplyForm({ id, email }: { id: string; email: string }) {
  const [body, setBody] = useState("");
  const reply = useReplyMutation();
  return (
    <form
      className="inbox-reply"
      onSubmit={(e) => {
        e.preventDefault();
        if (body.trim()) reply.mutate({ id, body }, { onSuccess: () => setBody("") });
      }}
    >
      <label htmlFor={`reply-${id}`}>Reply to {email}</label>
      <textarea
        id={`reply-${id}`}
        className="input"
        rows={4}
        maxLength={10_000}
        value={body}
        onChange={(e) => setBody(e.target.value)}
        placeholder="Write your reply. It is sent by e-mail and kept with this message."
      />
      <button
        type="submit"
        className="btn btn-primary btn-sm"
        disabled={reply.isPending || !body.trim()}
      >
        {reply.isPending ? "Sending..." : "Send reply"}
      </button>
    </form>
  );
}

/** Messages sent through /contact, newest first: open one, reply by e-mail, mark it handled. */
export function InboxPanel() {
  const [page, setPage] = useState(1);
  const [openId, setOpenId] = useState<string | null>(null);
  const query = useInboxQuery(INBOX_PAGE_SIZE, (page - 1) * INBOX_PAGE_SIZE);
  const markHandled = useMarkHandledMutation();
  const messages = query.data?.messages ?? [];

  if (query.isPending) return <Spinner />;
  if (query.isLoadingError) return <p className="empty-state">Failed to load messages</p>;

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
                    {m.replies.length > 0 && (
                      <ul className="inbox-replies" aria-label="Replies">
                        {m.replies.map((r) => (
                          <li key={r.id}>
                            <p className="inbox-text">{r.body}</p>
                            <span className="muted">
                              {formatDateTime(r.created_at)} ·{" "}
                              {MAIL_STATUS[r.mail_status] ?? r.mail_status}
                            </span>
                          </li>
                        ))}
                      </ul>
                    )}
                    <ReplyForm id={m.id} email={m.email} />
                    <div className="admin-actions">
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
