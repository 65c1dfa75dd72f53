import { Link } from "react-router";
import { StaticPage } from "../../components/static-page.tsx";

export const API_BASE_URL = "https://api.keepsake.app/v1";

export function DocsPage() {
  return (
    <StaticPage
      eyebrow="Developers"
      title="API Documentation"
      lead="Automate your backups and read your archive programmatically with the Keepsake API."
    >
      <div className="prose">
        <h2>Getting started</h2>
        <p>
          Generate an API key from your dashboard settings, then send it as a bearer token with
          every request. Keep your key secret: it grants the same access as your account.
        </p>
        <h2>Base URL</h2>
        <pre className="code-block">
          <code>{API_BASE_URL}</code>
        </pre>
        <h2>Authentication</h2>
        <pre className="code-block">
          <code>{`curl ${API_BASE_URL}/backups \\
  -H "Authorization: Bearer YOUR_API_KEY"`}</code>
        </pre>
        <h2>Resources</h2>
        <ul>
          <li>
            <strong>Posts</strong> — the Instagram posts Keepsake knows about, with captions and
            metadata.
          </li>
          <li>
            <strong>Backups</strong> — the status of each post&apos;s copy in your Google Drive.
          </li>
          <li>
            <strong>Syncs</strong> — start a sync and follow its progress.
          </li>
        </ul>
        <p>
          Ready to try it? <Link to="/dashboard">Go to your dashboard</Link> to create a key.
        </p>
      </div>
    </StaticPage>
  );
}
