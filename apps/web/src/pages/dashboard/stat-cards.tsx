import type { DashboardStats } from "@keepsake/contracts";
import { formatBytes, formatCount } from "../../lib/format.ts";

interface StatCardsProps {
  stats: DashboardStats | undefined;
  isLoading: boolean;
  isError: boolean;
}

/** SPEC §2: Total Posts, Backed Up, Pending, Storage Used. */
export function StatCards({ stats, isLoading, isError }: StatCardsProps) {
  const cards: { label: string; value: string | undefined; tone: string }[] = [
    { label: "Total Posts", value: stats && formatCount(stats.total_posts), tone: "primary" },
    { label: "Backed Up", value: stats && formatCount(stats.backed_up_posts), tone: "success" },
    { label: "Pending", value: stats && formatCount(stats.pending_backups), tone: "warning" },
    {
      label: "Storage Used",
      value: stats && formatBytes(stats.total_storage_used),
      tone: "accent",
    },
  ];
  return (
    <section className="stat-cards" aria-label="Backup statistics" aria-busy={isLoading}>
      {cards.map((card) => (
        <div key={card.label} className={`card stat-card stat-card-${card.tone}`}>
          <p className="stat-card-label">{card.label}</p>
          {card.value !== undefined ? (
            <p className="stat-card-value">{card.value}</p>
          ) : isLoading ? (
            <span className="skeleton skeleton-text stat-card-skeleton" aria-hidden="true" />
          ) : (
            <p className="stat-card-value muted" title={isError ? "Could not load" : undefined}>
              -
            </p>
          )}
        </div>
      ))}
    </section>
  );
}
