import { StaticPage } from "../../components/static-page.tsx";
import { Link } from "../../lib/navigation.tsx";

export function BlogPage() {
  return (
    <StaticPage eyebrow="Blog" title="Our blog is coming soon">
      <div className="empty-state">
        <p>
          Tips on protecting your content, creator stories and product news — we&apos;re writing the
          first posts now.
        </p>
        <Link to="/" className="btn btn-primary">
          Back to home
        </Link>
      </div>
    </StaticPage>
  );
}
