import { phoneHref } from "@keepsake/contracts";
import { useContactDetails } from "../api/site.ts";
import { Link } from "../lib/navigation.tsx";
import { footerColumns, site } from "../lib/site.ts";
import { Icon } from "./icons.tsx";
import { Logo } from "./logo.tsx";
import { SocialLinks } from "./social-links.tsx";

export function SiteFooter() {
  const contact = useContactDetails();
  return (
    <footer className="site-footer">
      <div className="container footer-grid">
        <div className="footer-brand">
          <Logo />
          <p className="footer-tagline">
            Your Instagram posts, reels, carousels and stories — safely backed up to your own Google
            Drive.
          </p>
          <ul className="footer-contact">
            <li>
              <Icon.Mail />
              <a href={`mailto:${contact.support_email}`}>{contact.support_email}</a>
            </li>
            <li>
              <Icon.Phone />
              <a href={phoneHref(contact.phone)}>{contact.phone}</a>
            </li>
            <li>
              <Icon.MapPin />
              <span>{site.city}</span>
            </li>
          </ul>
          <SocialLinks className="footer-social" aria-label="Social media" />
        </div>
        {footerColumns.map((column) => (
          <nav key={column.title} className="footer-column" aria-label={column.title}>
            <h2 className="footer-heading">{column.title}</h2>
            <ul>
              {column.links.map((link) => (
                <li key={link.to}>
                  <Link to={link.to}>{link.label}</Link>
                </li>
              ))}
            </ul>
          </nav>
        ))}
      </div>
      <div className="container footer-bottom">
        <p>
          © {new Date().getFullYear()} {site.name}. All rights reserved.
        </p>
        <p>Made for creators in {site.city}.</p>
      </div>
    </footer>
  );
}
