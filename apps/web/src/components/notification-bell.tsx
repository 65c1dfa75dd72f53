import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { useUnreadCountQuery } from "../api/notifications.ts";
import { useLocation } from "../lib/navigation.tsx";
import { Icon } from "./icons.tsx";

// The list (and its styles) is a chunk of its own, loaded the first time the bell is opened.
const NotificationList = lazy(() =>
  import("./notification-list.tsx").then((m) => ({ default: m.NotificationList })),
);

/** The header's bell: the unread count, and the list of notifications when opened. */
export function NotificationBell() {
  const [open, setOpen] = useState(false);
  const unread = useUnreadCountQuery(true).data ?? 0;
  const ref = useRef<HTMLDivElement>(null);
  const location = useLocation();
  const here = `${location.pathname}${location.search}`;
  const [at, setAt] = useState(here);
  // Following a link from the list closes it.
  if (at !== here) {
    setAt(here);
    setOpen(false);
  }

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  const label = unread > 0 ? `Notifications (${unread} unread)` : "Notifications";
  return (
    <div className="bell" ref={ref}>
      <button
        type="button"
        className="bell-button"
        aria-label={label}
        title={label}
        aria-expanded={open}
        aria-haspopup="dialog"
        data-testid="notification-bell"
        onClick={() => setOpen(!open)}
      >
        <Icon.Bell />
        {unread > 0 && (
          <span className="bell-count" data-testid="notification-count">
            {unread > 99 ? "99+" : unread}
          </span>
        )}
      </button>
      {open && (
        <Suspense fallback={<div className="bell-panel" aria-busy="true" />}>
          <NotificationList />
        </Suspense>
      )}
    </div>
  );
}
