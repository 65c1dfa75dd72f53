import { useConnectionsStatus } from "../../api/connections.ts";
import { Icon } from "../../components/icons.tsx";
import { Spinner } from "../../components/spinner.tsx";
import { useAuth } from "../../lib/auth.tsx";
import { Link, Navigate } from "../../lib/navigation.tsx";
import { heroCta } from "./hero-cta.ts";

function MainButton({ size = "btn-lg", light = false }: { size?: string; light?: boolean }) {
  const { user } = useAuth();
  const status = useConnectionsStatus(user !== null);
  const cta = heroCta(user, status.data);
  return (
    <Link to={cta.to} className={`btn ${light ? "btn-light" : "btn-primary"} ${size}`}>
      {cta.label}
    </Link>
  );
}

const stats = [
  { value: "10,000+", label: "Creators protected" },
  { value: "1M+", label: "Posts backed up" },
  { value: "99.9%", label: "Uptime" },
  { value: "4.9/5", label: "Average rating" },
];

const features = [
  {
    icon: Icon.Image,
    title: "Original quality",
    text: "Photos, reels, carousels and stories are saved exactly as you posted them — full resolution, no compression.",
  },
  {
    icon: Icon.Folder,
    title: "Your own Google Drive",
    text: "Everything lands in a tidy Keepsake folder in your Drive, organised by account and year. You own every file.",
  },
  {
    icon: Icon.Zap,
    title: "Automatic backups",
    text: "On paid plans new posts are picked up every 10 minutes. Free plans back up with one click, any time.",
  },
  {
    icon: Icon.Book,
    title: "Captions and metadata",
    text: "Captions, dates, likes, comments counts and permalinks are kept next to each file, so nothing loses its story.",
  },
  {
    icon: Icon.Users,
    title: "Built for teams and agencies",
    text: "Connect up to 10 Instagram accounts on the Agency plan and see every backup in one dashboard.",
  },
  {
    icon: Icon.Shield,
    title: "Private by design",
    text: "Your content streams straight to your Drive. We never keep copies of your media on our servers.",
  },
];

const testimonials = [
  {
    quote:
      "I lost access to an old account once and years of work went with it. Keepsake means that never happens again.",
    name: "Maya Chen",
    role: "Travel photographer, 240K followers",
  },
  {
    quote:
      "Setup took two minutes. Every reel I post now shows up in our shared Drive before my coffee is cold.",
    name: "Daniel Ortiz",
    role: "Food creator",
  },
  {
    quote:
      "We manage eight client accounts. Having every post archived with captions has saved us hours of digging.",
    name: "Priya Nair",
    role: "Founder, Bloom Social Agency",
  },
];

const reasons = [
  {
    title: "Set up in 2 minutes",
    text: "Connect Instagram and Google Drive, press start. No downloads, no spreadsheets.",
  },
  {
    title: "No credit card for Free",
    text: "Back up your latest 100 posts for free, then upgrade only if you need more.",
  },
  {
    title: "Zero storage on our side",
    text: "Media goes directly to your Drive over encrypted connections.",
  },
  {
    title: "Cancel any time",
    text: "Plans are month-to-month or annual, with a 30-day money-back guarantee.",
  },
];

const steps = [
  {
    title: "Connect your accounts",
    text: "Link your Instagram professional account and your Google Drive with secure sign-in.",
  },
  {
    title: "Start your backup",
    text: "Keepsake copies your posts, reels, carousels and stories into your Drive, in original quality.",
  },
  {
    title: "Focus on creating",
    text: "New posts are backed up for you. Spend your time making content, not worrying about it.",
  },
];

export function LandingPage() {
  const { user, isLoading } = useAuth();
  if (isLoading) {
    return (
      <div className="page-loading">
        <Spinner />
      </div>
    );
  }
  if (user) return <Navigate to="/dashboard" replace />;

  return (
    <div className="landing">
      <section className="hero">
        <div className="container hero-inner">
          <div className="hero-copy">
            <span className="badge">Trusted by 10,000+ creators</span>
            <h1 className="hero-title">
              Your Instagram, <span className="text-gradient">safely backed up</span> to your own
              Google Drive
            </h1>
            <p className="hero-lead">
              Keepsake copies every post, reel, carousel and story — in original quality, with
              captions and metadata — straight into your Google Drive. Set up in 2 minutes. Free to
              start, no credit card required.
            </p>
            <div className="hero-actions">
              <MainButton />
              <a href="#how-it-works" className="btn btn-secondary btn-lg">
                See how it works
              </a>
            </div>
            <ul className="hero-points">
              <li>
                <Icon.Check /> Setup in 2 minutes
              </li>
              <li>
                <Icon.Check /> Free plan, no credit card
              </li>
              <li>
                <Icon.Check /> Your files, your Drive
              </li>
            </ul>
          </div>
          <div className="hero-visual" aria-hidden="true">
            <div className="hero-window">
              <div className="hero-window-bar">
                <span />
                <span />
                <span />
              </div>
              <div className="hero-window-body">
                <div className="hero-folder">
                  <Icon.Folder /> Keepsake / @yourbrand / 2026
                </div>
                <div className="hero-grid">
                  {["a", "b", "c", "d", "e", "f"].map((k, i) => (
                    <div key={k} className={`hero-tile hero-tile-${i % 3}`}>
                      <span className="hero-tile-check">
                        <Icon.Check />
                      </span>
                    </div>
                  ))}
                </div>
                <div className="hero-progress">
                  <div className="hero-progress-bar" />
                </div>
                <p className="hero-progress-label">Backing up 128 of 142 posts…</p>
              </div>
            </div>
          </div>
        </div>
        <div className="container">
          <dl className="stats-strip">
            {stats.map((s) => (
              <div key={s.label} className="stat">
                <dt>{s.label}</dt>
                <dd>{s.value}</dd>
              </div>
            ))}
          </dl>
        </div>
      </section>

      <section id="features" className="section">
        <div className="container">
          <div className="section-head">
            <span className="eyebrow">Features</span>
            <h2>Everything you post, kept forever</h2>
            <p>
              Accounts get hacked, suspended or deleted. Keepsake keeps an independent copy of your
              work where you control it.
            </p>
          </div>
          <div className="feature-grid">
            {features.map((f) => (
              <article key={f.title} className="feature-card">
                <span className="feature-icon">
                  <f.icon />
                </span>
                <h3>{f.title}</h3>
                <p>{f.text}</p>
              </article>
            ))}
          </div>
        </div>
      </section>

      <section className="section section-muted" aria-labelledby="testimonials-title">
        <div className="container">
          <div className="section-head">
            <span className="eyebrow">Testimonials</span>
            <h2 id="testimonials-title">Loved by creators — rated 4.9/5</h2>
          </div>
          <div className="testimonial-grid">
            {testimonials.map((t) => (
              <figure key={t.name} className="testimonial">
                <div className="stars" role="img" aria-label="5 out of 5 stars">
                  {[1, 2, 3, 4, 5].map((n) => (
                    <Icon.Star key={n} />
                  ))}
                </div>
                <blockquote>“{t.quote}”</blockquote>
                <figcaption>
                  <strong>{t.name}</strong>
                  <span>{t.role}</span>
                </figcaption>
              </figure>
            ))}
          </div>
        </div>
      </section>

      <section className="section" aria-labelledby="why-title">
        <div className="container why">
          <div className="section-head section-head-left">
            <span className="eyebrow">Why Keepsake</span>
            <h2 id="why-title">Why creators choose Keepsake</h2>
            <p>
              A backup is only useful if it is complete, automatic and yours. That is the whole
              product.
            </p>
          </div>
          <ul className="why-list">
            {reasons.map((r) => (
              <li key={r.title}>
                <span className="why-check">
                  <Icon.Check />
                </span>
                <div>
                  <h3>{r.title}</h3>
                  <p>{r.text}</p>
                </div>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section id="how-it-works" className="section section-muted" aria-labelledby="how-title">
        <div className="container">
          <div className="section-head">
            <span className="eyebrow">How it works</span>
            <h2 id="how-title">Protected in 3 simple steps</h2>
          </div>
          <ol className="steps">
            {steps.map((s, i) => (
              <li key={s.title} className="step">
                <span className="step-number">{i + 1}</span>
                <h3>{s.title}</h3>
                <p>{s.text}</p>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="section">
        <div className="container">
          <div className="cta-band">
            <h2>Don&apos;t wait until it&apos;s gone</h2>
            <p>
              Join 10,000+ creators who have backed up more than 1M posts. Start free — it takes 2
              minutes.
            </p>
            <MainButton light />
          </div>
        </div>
      </section>
    </div>
  );
}
