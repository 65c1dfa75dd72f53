import { Link } from "react-router";
import { Icon } from "../../components/icons.tsx";
import { StaticPage } from "../../components/static-page.tsx";

const values = [
  {
    icon: Icon.Lock,
    title: "Privacy first",
    text: "Your content goes to your Drive, not ours.",
  },
  {
    icon: Icon.Shield,
    title: "Reliability",
    text: "Backups that run, retry and finish — every time.",
  },
  { icon: Icon.Zap, title: "Simplicity", text: "Two minutes to set up, nothing to maintain." },
  {
    icon: Icon.Eye2,
    title: "Transparency",
    text: "Clear pricing, a public status page, honest answers.",
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
          creators quickly asked for the same. Today more than 10,000 creators trust Keepsake with
          over a million posts.
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
