import { Icon } from "../../components/icons.tsx";
import { StaticPage } from "../../components/static-page.tsx";
import { Link } from "../../lib/navigation.tsx";

const values = [
  {
    icon: Icon.Lock,
    title: "Privacy first",
    text: "Your content goes to your Drive, not ours.",
  },
  {
    icon: Icon.Shield,
    title: "Reliability",
    text: "Interrupted uploads resume where they stopped; failed backups retry by themselves.",
  },
  {
    icon: Icon.Zap,
    title: "Simplicity",
    text: "Connect two accounts; your posts land in plain folders by account and year.",
  },
  {
    icon: Icon.Eye2,
    title: "Transparency",
    text: "Clear pricing and a status page computed from live health data.",
  },
];

export function AboutPage() {
  return (
    <StaticPage
      eyebrow="About us"
      title="We protect what creators make"
      lead="Keepsake is a small team in San Francisco, CA building the backup every creator deserves."
    >
      <div className="prose">
        <h2>Our mission</h2>
        <p>
          Make sure no creator ever loses their work. Your posts are years of effort, memories and
          income — they should not depend on a single platform staying kind to you.
        </p>
        <h2>Our story</h2>
        <p>
          Keepsake started when a friend&apos;s account was hacked and years of photos vanished
          overnight. We built a tool to copy everything into her own Google Drive, and other
          creators quickly asked for the same. Today Keepsake backs up posts, reels, carousels and
          stories in original quality, with captions and metadata, into{" "}
          <code>Keepsake/@username/YYYY/</code> folders in each creator&apos;s own Drive —
          automatically every 10 minutes on paid plans, or whenever you press Start Backup on the
          free plan.
        </p>
      </div>
      <h2 className="values-title">Our values</h2>
      <div className="feature-grid feature-grid-4">
        {values.map((v) => (
          <article key={v.title} className="feature-card">
            <span className="feature-icon">
              <v.icon />
            </span>
            <h3>{v.title}</h3>
            <p>{v.text}</p>
          </article>
        ))}
      </div>
      <div className="cta-inline">
        <p>Want to talk to us?</p>
        <Link to="/contact" className="btn btn-primary">
          Contact us
        </Link>
      </div>
    </StaticPage>
  );
}
