/**
 * Fixed facts shown across the site. The e-mail addresses and the phone number come from the
 * server's configuration: `useContactDetails()` (api/site.ts).
 */
export const site = {
  name: "Keepsake",
  city: "San Francisco, CA",
  businessHours: "Mon-Fri 9am-6pm PST",
  socials: [
    { label: "X", href: "https://x.com/keepsakeapp" },
    { label: "Instagram", href: "https://www.instagram.com/keepsakeapp" },
    { label: "LinkedIn", href: "https://www.linkedin.com/company/keepsakeapp" },
  ],
} as const;

export const footerColumns = [
  {
    title: "Product",
    links: [
      { to: "/pricing", label: "Pricing" },
      { to: "/dashboard", label: "Dashboard" },
      { to: "/backups", label: "Backups" },
      { to: "/status", label: "System Status" },
    ],
  },
  {
    title: "Support",
    links: [
      { to: "/help", label: "Help Center" },
      { to: "/contact", label: "Contact Us" },
      { to: "/docs", label: "API Docs" },
    ],
  },
  {
    title: "Legal",
    links: [
      { to: "/privacy", label: "Privacy Policy" },
      { to: "/terms", label: "Terms of Service" },
      { to: "/cookies", label: "Cookie Policy" },
      { to: "/security", label: "Security" },
    ],
  },
  {
    title: "Company",
    links: [
      { to: "/about", label: "About" },
      { to: "/blog", label: "Blog" },
      { to: "/careers", label: "Careers" },
      { to: "/press", label: "Press" },
    ],
  },
] as const;
