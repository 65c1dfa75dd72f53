import { phoneHref } from "@keepsake/contracts";
import { CONTACT_LIMITS } from "@keepsake/contracts/admin-messages";
import { type FormEvent, useState } from "react";
import { useSendContactMutation } from "../../api/contact.ts";
import { useContactDetails } from "../../api/site.ts";
import { TextField } from "../../components/form-field.tsx";
import { Icon } from "../../components/icons.tsx";
import { SocialLinks } from "../../components/social-links.tsx";
import { StaticPage } from "../../components/static-page.tsx";
import { site } from "../../lib/site.ts";

const empty = { name: "", email: "", subject: "", message: "" };

export function ContactPage() {
  const contact = useContactDetails();
  const [draft, setDraft] = useState(empty);
  const send = useSendContactMutation();
  const sending = send.isPending;

  const update =
    (field: keyof typeof empty) =>
    (e: { target: { value: string } }): void =>
      setDraft((d) => ({ ...d, [field]: e.target.value }));

  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    // The fields clear only once the message is stored; a failure keeps what was typed.
    send.mutate(draft, { onSuccess: () => setDraft(empty) });
  };

  return (
    <StaticPage
      eyebrow="Contact"
      title="Get in Touch"
      lead="Questions about backups, billing or partnerships? We'd love to hear from you."
    >
      <div className="contact-grid">
        <aside className="contact-info card">
          <h2>Contact information</h2>
          <ul className="contact-list">
            <li>
              <Icon.Mail />
              <div>
                <strong>Email</strong>
                <a href={`mailto:${contact.support_email}`}>{contact.support_email}</a>
              </div>
            </li>
            <li>
              <Icon.Phone />
              <div>
                <strong>Phone</strong>
                <a href={phoneHref(contact.phone)}>{contact.phone}</a>
              </div>
            </li>
            <li>
              <Icon.MapPin />
              <div>
                <strong>Office</strong>
                <span>{site.city}</span>
              </div>
            </li>
            <li>
              <Icon.Clock />
              <div>
                <strong>Hours</strong>
                <span>{site.businessHours}</span>
              </div>
            </li>
          </ul>
          <h3>Follow us</h3>
          <SocialLinks className="contact-social" />
        </aside>

        <form className="card contact-form" onSubmit={onSubmit}>
          <h2>Send us a Message</h2>
          <div className="form-row">
            <TextField
              id="contact-name"
              label="Name"
              name="name"
              required
              maxLength={CONTACT_LIMITS.name}
              autoComplete="name"
              value={draft.name}
              onChange={update("name")}
            />
            <TextField
              id="contact-email"
              label="Email"
              name="email"
              type="email"
              required
              maxLength={CONTACT_LIMITS.email}
              autoComplete="email"
              value={draft.email}
              onChange={update("email")}
            />
          </div>
          <TextField
            id="contact-subject"
            label="Subject"
            name="subject"
            required
            maxLength={CONTACT_LIMITS.subject}
            value={draft.subject}
            onChange={update("subject")}
          />
          <div className="field">
            <label className="field-label" htmlFor="contact-message">
              Message
            </label>
            <textarea
              id="contact-message"
              name="message"
              className="textarea"
              rows={6}
              required
              maxLength={CONTACT_LIMITS.message}
              value={draft.message}
              onChange={update("message")}
            />
          </div>
          <button type="submit" className="btn btn-primary" disabled={sending}>
            {sending ? "Sending..." : "Send Message"}
          </button>
        </form>
      </div>
    </StaticPage>
  );
}
