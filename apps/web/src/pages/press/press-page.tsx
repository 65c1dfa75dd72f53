import { useContactDetails } from "../../api/site.ts";
import { StaticPage } from "../../components/static-page.tsx";

/** Built by scripts/press-kit.ts into apps/web/public/press-kit/. */
export const PRESS_KIT = {
  zip: "/press-kit/keepsake-press-kit.zip",
  files: [
    { href: "/press-kit/keepsake-logo.svg", label: "Logo (SVG)" },
    { href: "/press-kit/keepsake-logo.png", label: "Logo (PNG, 720 × 192)" },
    { href: "/press-kit/keepsake-fact-sheet.pdf", label: "Fact sheet (PDF, one page)" },
  ],
} as const;

export function PressPage() {
  const contact = useContactDetails();
  return (
    <StaticPage
      eyebrow="Press"
      title="Press & Media"
      lead="Our logo and the facts about Keepsake for your story."
    >
      <div className="press-grid">
        <article className="card">
          <h2>Press kit</h2>
          <p>
            The Keepsake logo as SVG and PNG, and a one-page fact sheet: what Keepsake does, how it
            works, plans and prices, privacy.
          </p>
          <a href={PRESS_KIT.zip} download className="btn btn-primary">
            Download Press Kit
          </a>
          <ul className="press-files">
            {PRESS_KIT.files.map((f) => (
              <li key={f.href}>
                <a href={f.href} download>
                  {f.label}
                </a>
              </li>
            ))}
          </ul>
        </article>
        <article className="card">
          <h2>Media contact</h2>
          <p>For interviews and press enquiries, write to our media team.</p>
          <a href={`mailto:${contact.press_email}`} className="btn btn-secondary">
            {contact.press_email}
          </a>
        </article>
      </div>
    </StaticPage>
  );
}
