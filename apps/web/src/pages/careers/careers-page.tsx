import { useContactDetails } from "../../api/site.ts";
import { StaticPage } from "../../components/static-page.tsx";

export function CareersPage() {
  const contact = useContactDetails();
  return (
    <StaticPage eyebrow="Careers" title="Join Keepsake">
      <div className="empty-state">
        <h2>No Open Positions</h2>
        <p>
          We are not hiring right now, but we are always glad to hear from great people. Send your
          CV to <a href={`mailto:${contact.careers_email}`}>{contact.careers_email}</a>.
        </p>
      </div>
    </StaticPage>
  );
}
