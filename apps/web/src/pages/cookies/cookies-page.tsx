import { useContactDetails } from "../../api/site.ts";
import { StaticPage } from "../../components/static-page.tsx";
import { SESSION_STORAGE_KEYS } from "../../lib/session.ts";

export function CookiesPage() {
  const contact = useContactDetails();
  return (
    <StaticPage eyebrow="Legal" title="Cookie Policy" updated="November 23, 2026">
      <div className="prose">
        <p>
          Keepsake sets no cookies. It keeps two items in your browser&apos;s local storage, and
          only while you are signed in.
        </p>
        <h2>Essential storage</h2>
        <ul>
          <li>
            <code>{SESSION_STORAGE_KEYS.token}</code>: your sign-in token, sent with each request so
            Keepsake knows it is you. Logging out removes it and ends the session on our side.
          </li>
          <li>
            <code>{SESSION_STORAGE_KEYS.user}</code>: a copy of your profile (name, e-mail, plan) so
            the page can show it before the server answers.
          </li>
        </ul>
        <h2>Analytics cookies</h2>
        <p>None. Keepsake runs no analytics, advertising or tracking scripts.</p>
        <h2>Preference cookies</h2>
        <p>
          None. Choices such as the monthly or annual price view are not remembered between visits.
        </p>
        <h2>Other sites</h2>
        <p>
          When you connect Instagram or Google Drive, or pay through Stripe, you are on their pages
          and their cookie policies apply there.
        </p>
        <h2>Managing storage</h2>
        <p>
          You can clear site data in your browser settings at any time; you will simply be signed
          out. Questions: <a href={`mailto:${contact.support_email}`}>{contact.support_email}</a>.
        </p>
      </div>
    </StaticPage>
  );
}
