import { StaticPage } from "../../components/static-page.tsx";
import { site } from "../../lib/site.ts";

export function PrivacyPage() {
  return (
    <StaticPage eyebrow="Legal" title="Privacy Policy" updated="January 1, 2026">
      <div className="prose">
        <p>
          This policy explains what information Keepsake collects, how we use it and the choices you
          have. Keepsake backs up your Instagram content to your own Google Drive; we are built so
          that we hold as little of your data as possible.
        </p>
        <h2>Information we collect</h2>
        <ul>
          <li>Account information: your name, e-mail address and a hash of your password.</li>
          <li>
            Connection information: access tokens for the Instagram and Google accounts you connect,
            stored encrypted.
          </li>
          <li>
            Post metadata needed to run backups (identifiers, captions, timestamps and counts).
          </li>
          <li>Billing information, handled by our payment processor.</li>
        </ul>
        <h2>Your media</h2>
        <p>
          Photos and videos are streamed from Instagram directly into your Google Drive. We do not
          keep copies of your media on our servers.
        </p>
        <h2>How we use information</h2>
        <p>
          To provide and improve the service, to run backups you request or schedule, to process
          payments, to contact you about your account and to keep Keepsake secure. We do not sell
          your personal information.
        </p>
        <h2>Sharing</h2>
        <p>
          We share information only with providers that help us run Keepsake (hosting, payments,
          e-mail), under contracts that protect it, or when required by law.
        </p>
        <h2>Retention and deletion</h2>
        <p>
          You can disconnect accounts at any time, which deletes the stored tokens. Deleting your
          Keepsake account removes your personal information; files in your Google Drive stay yours.
        </p>
        <h2>Contact</h2>
        <p>
          Questions about privacy? Write to{" "}
          <a href={`mailto:${site.supportEmail}`}>{site.supportEmail}</a>.
        </p>
      </div>
    </StaticPage>
  );
}
