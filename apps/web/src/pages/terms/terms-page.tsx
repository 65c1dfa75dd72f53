import { useContactDetails } from "../../api/site.ts";
import { StaticPage } from "../../components/static-page.tsx";

export function TermsPage() {
  const contact = useContactDetails();
  return (
    <StaticPage eyebrow="Legal" title="Terms of Service" updated="January 1, 2026">
      <div className="prose">
        <p>These terms govern your use of Keepsake. By creating an account you agree to them.</p>
        <h2>The service</h2>
        <p>
          Keepsake copies content from Instagram accounts you are authorised to manage into a Google
          Drive you control. You must have the right to back up the content you connect.
        </p>
        <h2>Your account</h2>
        <p>
          Keep your password safe and tell us promptly about any unauthorised use. You are
          responsible for activity under your account.
        </p>
        <h2>Plans and billing</h2>
        <p>
          Paid plans renew automatically each month or year until cancelled. You can cancel at any
          time from Settings; paid plans include a 30-day money-back guarantee.
        </p>
        <h2>Acceptable use</h2>
        <p>
          Do not misuse the service, attempt to access other users&apos; data, or use Keepsake in
          violation of Instagram&apos;s or Google&apos;s terms.
        </p>
        <h2>Availability and liability</h2>
        <p>
          We work hard to keep Keepsake available and your backups complete, but the service is
          provided &quot;as is&quot;. To the extent permitted by law, our liability is limited to
          the amount you paid us in the last twelve months.
        </p>
        <h2>Changes</h2>
        <p>We may update these terms and will tell you about material changes by e-mail.</p>
        <h2>Contact</h2>
        <p>
          Questions about these terms? Write to{" "}
          <a href={`mailto:${contact.support_email}`}>{contact.support_email}</a>.
        </p>
      </div>
    </StaticPage>
  );
}
