import {
  useNotificationPreferencesQuery,
  useSetNotificationPreferenceMutation,
} from "../../api/notifications.ts";
import "./notifications-tab.css";

/**
 * Settings → Notifications (issue 29): an e-mail toggle per category. Alerts always appear
 * under the bell; the toggles decide which ones are also e-mailed.
 */
export function NotificationsTab() {
  const { data, isLoading, isLoadingError } = useNotificationPreferencesQuery();
  const save = useSetNotificationPreferenceMutation();

  return (
    <section className="card notifications-tab" aria-labelledby="notifications-heading">
      <h2 id="notifications-heading" className="section-title">
        Notifications
      </h2>
      <p className="notifications-intro">
        Keepsake tells you, at once and once, when something needs you. Every alert appears under
        the bell at the top of the page; choose which ones we also send by e-mail.
      </p>
      {data && !data.email_verified && (
        <p className="notifications-warning" role="status">
          Your e-mail address is not verified yet, so no alert e-mails are sent. Verify it from the
          link we sent you.
        </p>
      )}
      {isLoading && <p>Loading…</p>}
      {isLoadingError && <p>Your notification settings could not be loaded.</p>}
      {data && (
        <ul className="notification-prefs">
          {data.categories.map(({ category, enabled }) => {
            const text = data.category_text[category] ?? {
              label: category,
              description: "",
            };
            const id = `pref-${category}`;
            return (
              <li key={category} className="notification-pref">
                <div>
                  <label htmlFor={id} className="notification-pref-label">
                    {text.label}
                  </label>
                  <p className="notification-pref-description">{text.description}</p>
                </div>
                <input
                  id={id}
                  type="checkbox"
                  role="switch"
                  aria-checked={enabled}
                  className="switch"
                  checked={enabled}
                  disabled={save.isPending}
                  onChange={(e) => save.mutate({ category, enabled: e.target.checked })}
                />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
