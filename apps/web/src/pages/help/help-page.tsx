import { type ReactNode, useMemo, useState } from "react";
import { useContactDetails } from "../../api/site.ts";
import { type Faq, FaqSection } from "../../components/faq-section.tsx";
import { Icon } from "../../components/icons.tsx";
import { Link } from "../../lib/navigation.tsx";
import { site } from "../../lib/site.ts";

/** One way to reach us: an icon, what it is, and the button that opens it (`children`). */
function SupportCard({
  icon,
  title,
  text,
  children,
}: {
  icon: ReactNode;
  title: string;
  text: ReactNode;
  children: ReactNode;
}) {
  return (
    <article className="support-card">
      <span className="feature-icon">{icon}</span>
      <h2>{title}</h2>
      <p>{text}</p>
      {children}
    </article>
  );
}

/** The entries whose question or answer contains every word of the query (any case). */
export function searchFaqs(list: readonly Faq[], query: string): Faq[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return list.filter((f) => {
    const text = `${f.q} ${f.a}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

export const faqs: Faq[] = [
  {
    q: "How do I connect my Instagram account?",
    a: "On the Free and Premium plans, go to Settings → Connected Accounts and choose Connect Instagram (Instagram Login) or Connect via Facebook; on Pro and Agency, use Add Account on the dashboard. Keepsake works with professional (Business or Creator) accounts; Connect via Facebook also needs the account linked to a Facebook Page. Personal accounts cannot be backed up.",
  },
  {
    q: "How often are my posts backed up?",
    a: "On the Premium, Pro and Agency plans Keepsake backs up automatically every 10 minutes: new posts and stories are picked up on the next run. On the Free plan backups are manual: press Start Backup on the dashboard whenever you like.",
  },
  {
    q: "Where is my content stored?",
    a: "In your own Google Drive, in a Keepsake folder organised by account and year. Keepsake does not keep your media on its servers.",
  },
  {
    q: "Can I download my backed-up content?",
    a: "Yes. Every file is a normal file in your Google Drive, in Keepsake/@username/year folders, so you can open or download it from Drive at any time; Drive can download a whole folder (an account or a year) as a zip. On the Backups page, View opens each backed-up post's file in Drive.",
  },
  {
    q: "Is my data secure?",
    a: "Keepsake talks to Instagram and Google over HTTPS, encrypts the access tokens of your connections at rest (AES-256-GCM) and stores passwords only as argon2id hashes. Your media streams straight into your Drive and never rests on our servers, and Keepsake's drive.file permission lets it see only the files it created.",
  },
  {
    q: "How do I cancel my subscription?",
    a: "Open Settings → Subscription and choose Manage Billing. The billing portal lets you cancel at any time.",
  },
];

export function HelpPage() {
  const contact = useContactDetails();
  const [query, setQuery] = useState("");
  const shown = useMemo(() => searchFaqs(faqs, query), [query]);
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
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              aria-controls="help-faq"
            />
          </div>
        </div>
      </header>
      <div className="container static-body">
        <div className="support-grid">
          <SupportCard
            icon={<Icon.Chat />}
            title="Contact Form"
            text={<>Send our team a message; we answer {site.businessHours}.</>}
          >
            <Link to="/contact" className="btn btn-secondary">
              Open Contact Form
            </Link>
          </SupportCard>
          <SupportCard
            icon={<Icon.Mail />}
            title="Email Support"
            text={<>Write to {contact.support_email} — we answer within one business day.</>}
          >
            <a href={`mailto:${contact.support_email}`} className="btn btn-secondary">
              Send Email
            </a>
          </SupportCard>
          <SupportCard
            icon={<Icon.Book />}
            title="Documentation"
            text={
              <>
                Guides and the API reference in our <Link to="/docs">documentation</Link>.
              </>
            }
          >
            <Link to="/docs" className="btn btn-secondary">
              View Docs
            </Link>
          </SupportCard>
        </div>

        <div id="help-faq" aria-live="polite">
          <FaqSection faqs={shown} titleId="help-faq-title" />
          {shown.length === 0 && (
            <p className="empty-state help-no-match">
              No answers match “{query.trim()}”. Try other words, or{" "}
              <Link to="/contact">send us a message</Link>.
            </p>
          )}
        </div>

        <section className="still-help card">
          <h2>Still need help?</h2>
          <p>Our support team is happy to help with anything not covered here.</p>
          <div className="still-help-actions">
            <a href={`mailto:${contact.support_email}`} className="btn btn-primary">
              Email {contact.support_email}
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
