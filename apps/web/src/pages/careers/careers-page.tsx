import { StaticPage } from "../../components/static-page.tsx";
import { site } from "../../lib/site.ts";

export function CareersPage() {
  return (
    <StaticPage eyebrow="Careers" title="Join Keepsake">
      <div className="empty-state">
        <h2>No Open Positions</h2>
        <p>
          We are not hiring right now, but we are always glad to hear from great people. Send your
          CV to <a href={`mailto:${site.careersEmail}`}>{site.careersEmail}</a>.
        </p>
      </div>
    </StaticPage>
  );
}
