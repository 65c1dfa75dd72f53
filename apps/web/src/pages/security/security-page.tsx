import { Icon } from "../../components/icons.tsx";
import { StaticPage } from "../../components/static-page.tsx";

const points = [
  {
    icon: Icon.Lock,
    title: "Encrypted transfers and tokens",
    text: "Keepsake talks to Instagram, Google and Stripe over HTTPS only. The access tokens of your connections are encrypted at rest with AES-256-GCM, and passwords are stored as argon2id hashes.",
  },
  {
    icon: Icon.Cloud,
    title: "Zero-storage policy",
    text: "Your photos and videos stream from Instagram straight into your own Google Drive, a small piece at a time; they are never written to our disks. Keepsake asks Google only for the drive.file permission, so it sees just the files it created.",
  },
  {
    icon: Icon.Shield,
    title: "Safeguards we test on every change",
    text: "Automated tests check on every change that each request sees only its own user's data, that sign-out and account deactivation end sessions at once, that repeated failed sign-ins are slowed down, that admin actions need admin rights, and that logs never contain passwords or tokens.",
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
