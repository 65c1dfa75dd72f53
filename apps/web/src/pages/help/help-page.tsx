import { Link } from "react-router";
import { type Faq, FaqSection } from "../../components/faq-section.tsx";
import { Icon } from "../../components/icons.tsx";
import { site } from "../../lib/site.ts";

const faqs: Faq[] = [
  {
    q: "How do I connect my Instagram account?",
    a: "Go to Settings → Connected Accounts and choose Connect Instagram. You need a professional (Business or Creator) account linked to a Facebook Page; personal accounts are not fully supported.",
  },
  {
    q: "How often are my posts backed up?",
    a: "Premium gets daily automatic backups and Free gets weekly backups, and you can run a manual backup any time from the dashboard.",
  },
  {
    q: "Where is my content stored?",
    a: "In your own Google Drive, in a Keepsake folder organised by account and year. Keepsake does not keep your media on its servers.",
  },
  {
    q: "Can I download my backed-up content?",
    a: "Yes. Every file is a normal file in your Google Drive, so you can open or download it from Drive at any time. Premium users can also bulk download from the Backups page.",
  },
  {
    q: "Is my data secure?",
    a: "Transfers are encrypted, access tokens are encrypted at rest, and your media goes straight to your Drive. We run regular security audits and penetration tests.",
  },
  {
    q: "How do I cancel my subscription?",
    a: "Open Settings → Subscription and choose Manage Subscription. The billing portal lets you cancel at any time.",
  },
];

export function HelpPage() {
  return (
    <div className="static-page">
      <title>Help Center · Keepsake</title>
      <header className="static-hero">
        <div className="container">
          <span className="eyebrow">Help Center</span>
          <h1>How can we help you?</h1>
          <div className="help-search">
            <label htmlFor="help-search" className="visually-hidden">
              Search for help
            </label>
            <input
              id="help-search"
              type="search"
              className="input"
              placeholder="Search for answers..."
            />
          </div>
        </div>
      </header>
      <div className="container static-body">
        <div className="support-grid">
          <article className="support-card">
            <span className="feature-icon">
              <Icon.Chat />
            </span>
            <h2>Live Chat</h2>
            <p>Chat with our team {site.chatHours}.</p>
            <button type="button" className="btn btn-secondary">
              Start Chat
            </button>
          </article>
          <article className="support-card">
            <span className="feature-icon">
              <Icon.Mail />
            </span>
            <h2>Email Support</h2>
            <p>Write to {site.supportEmail} — we answer within one business day.</p>
            <button type="button" className="btn btn-secondary">
              Send Email
            </button>
          </article>
          <article className="support-card">
            <span className="feature-icon">
              <Icon.Book />
            </span>
            <h2>Documentation</h2>
            <p>
              Guides and the API reference in our <Link to="/docs">documentation</Link>.
            </p>
            <button type="button" className="btn btn-secondary">
              View Docs
            </button>
          </article>
        </div>

        <FaqSection faqs={faqs} titleId="help-faq-title" />

        <section className="still-help card">
          <h2>Still need help?</h2>
          <p>Our support team is happy to help with anything not covered here.</p>
          <div className="still-help-actions">
            <a href={`mailto:${site.supportEmail}`} className="btn btn-primary">
              Email {site.supportEmail}
            </a>
            <Link to="/contact" className="btn btn-secondary">
              Contact us
            </Link>
          </div>
        </section>
      </div>
    </div>
  );
}
