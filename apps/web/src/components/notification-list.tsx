import {
  useMarkAllReadMutation,
  useMarkReadMutation,
  useNotificationsQuery,
} from "../api/notifications.ts";
import { Link } from "../lib/navigation.tsx";
import "./notification-list.css";

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });

/** The bell's panel: newest first, each with the link to its fix; mark read, mark all read. */
export function NotificationList() {
  const { data, isLoading, isLoadingError } = useNotificationsQuery();
  const markRead = useMarkReadMutation();
  const markAll = useMarkAllReadMutation();
  const items = data?.notifications ?? [];

  return (
    <div className="bell-panel" role="dialog" aria-label="Notifications">
      <div className="bell-panel-head">
        <strong>Notifications</strong>
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          disabled={!data || data.unread === 0 || markAll.isPending}
          onClick={() => markAll.mutate()}
        >
          Mark all read
        </button>
      </div>
      {isLoading && <p className="bell-empty">Loading…</p>}
      {isLoadingError && <p className="bell-empty">Notifications could not be loaded.</p>}
      {data && items.length === 0 && (
        <p className="bell-empty">
          You're all caught up. We'll tell you here when something needs you.
        </p>
      )}
      <ul className="bell-list">
        {items.map((n) => {
          const external = n.action_path !== null && /^https?:\/\//.test(n.action_path);
          const onFollow = () => {
            if (!n.read) markRead.mutate(n.id);
          };
          return (
            <li
              key={n.id}
              className={`bell-item${n.read ? "" : " bell-item-unread"}${n.resolved_at ? " bell-item-resolved" : ""}`}
              data-testid="notification-item"
              data-resolved={n.resolved_at ? "true" : undefined}
            >
              <div className="bell-item-title">
                {n.resolved_at && (
                  <span className="badge badge-success bell-resolved" title={when(n.resolved_at)}>
                    ✓ Resolved
                  </span>
                )}{" "}
                {n.title}
              </div>
              <div className="bell-item-body">{n.body}</div>
              <div className="bell-item-foot">
                <time dateTime={n.created_at}>{when(n.created_at)}</time>
                {!n.resolved_at &&
                  n.action_path &&
                  n.action_label &&
                  (external ? (
                    <a href={n.action_path} target="_blank" rel="noreferrer" onClick={onFollow}>
                      {n.action_label}
                    </a>
                  ) : (
                    <Link to={n.action_path} onClick={onFollow}>
                      {n.action_label}
                    </Link>
                  ))}
                {!n.read && (
                  <button
                    type="button"
                    className="bell-mark"
                    onClick={() => markRead.mutate(n.id)}
                    aria-label={`Mark "${n.title}" as read`}
                  >
                    Mark read
                  </button>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      <div className="bell-panel-foot">
        <Link to="/settings?tab=notifications">Notification settings</Link>
      </div>
    </div>
  );
}
