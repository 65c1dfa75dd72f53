import { StaticPage } from "../../components/static-page.tsx";

export function CookiesPage() {
  return (
    <StaticPage eyebrow="Legal" title="Cookie Policy" updated="January 1, 2026">
      <div className="prose">
        <p>Keepsake uses a small number of cookies and similar browser storage.</p>
        <h2>Essential cookies</h2>
        <p>
          Needed to sign you in and keep your session secure. The service does not work without
          them.
        </p>
        <h2>Analytics cookies</h2>
        <p>
          Help us understand, in aggregate, how Keepsake is used so we can improve it. They never
          contain your content.
        </p>
        <h2>Preference cookies</h2>
        <p>Remember choices such as your billing cycle or interface settings.</p>
        <h2>Managing cookies</h2>
        <p>
          You can control and delete cookies in your browser settings. Blocking essential cookies
          will prevent you from signing in.
        </p>
      </div>
    </StaticPage>
  );
}
