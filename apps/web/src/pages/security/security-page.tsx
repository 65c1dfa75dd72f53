import { Icon } from "../../components/icons.tsx";
import { StaticPage } from "../../components/static-page.tsx";

const points = [
  {
    icon: Icon.Lock,
    title: "Encrypted transfers",
    text: "Every connection — between your browser, Keepsake, Instagram and Google Drive — is encrypted with TLS. Access tokens are encrypted at rest.",
  },
  {
    icon: Icon.Cloud,
    title: "Zero-storage policy",
    text: "Your photos and videos stream straight into your own Google Drive. We never keep copies of your media on our servers.",
  },
  {
    icon: Icon.Shield,
    title: "Regular audits and penetration testing",
    text: "Independent security audits and penetration tests are run regularly, and findings are fixed promptly.",
  },
];

export function SecurityPage() {
  return (
    <StaticPage
      eyebrow="Trust"
      title="Security"
      lead="Your content is your livelihood. Here is how we protect it."
    >
      <div className="feature-grid feature-grid-3">
        {points.map((p) => (
          <article key={p.title} className="feature-card">
            <span className="feature-icon">
              <p.icon />
            </span>
            <h2>{p.title}</h2>
            <p>{p.text}</p>
          </article>
        ))}
      </div>
    </StaticPage>
  );
}
