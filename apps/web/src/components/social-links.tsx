import { site } from "../lib/site.ts";

/** Keepsake's social media profiles, each opening in a new tab. */
export function SocialLinks(props: { className: string; "aria-label"?: string }) {
  return (
    <ul {...props}>
      {site.socials.map((s) => (
        <li key={s.label}>
          <a href={s.href} target="_blank" rel="noopener noreferrer">
            {s.label}
          </a>
        </li>
      ))}
    </ul>
  );
}
