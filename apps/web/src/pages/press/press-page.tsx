import { StaticPage } from "../../components/static-page.tsx";
import { site } from "../../lib/site.ts";

export function PressPage() {
  return (
    <StaticPage
      eyebrow="Press"
      title="Press & Media"
      lead="Logos, screenshots and facts about Keepsake for your story."
    >
      <div className="press-grid">
        <article className="card">
          <h2>Press kit</h2>
          <p>Logos, product screenshots, founder photos and a company fact sheet.</p>
          <button type="button" className="btn btn-primary">
            Download Press Kit
          </button>
        </article>
        <article className="card">
          <h2>Media contact</h2>
          <p>For interviews and press enquiries, write to our media team.</p>
          <a href={`mailto:${site.pressEmail}`} className="btn btn-secondary">
            {site.pressEmail}
          </a>
        </article>
      </div>
    </StaticPage>
  );
}
