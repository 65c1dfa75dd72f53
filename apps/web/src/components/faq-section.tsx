export interface Faq {
  q: string;
  a: string;
}

/** "Frequently asked questions": one collapsible entry per question. */
export function FaqSection({
  faqs,
  titleId,
  className,
}: {
  faqs: readonly Faq[];
  titleId: string;
  className?: string;
}) {
  return (
    <section className={`${className ? `${className} ` : ""}section faq`} aria-labelledby={titleId}>
      <h2 id={titleId}>Frequently asked questions</h2>
      <div className="faq-list">
        {faqs.map((f) => (
          <details key={f.q} className="faq-item">
            <summary>{f.q}</summary>
            <p>{f.a}</p>
          </details>
        ))}
      </div>
    </section>
  );
}
