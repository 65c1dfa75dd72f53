import { pageWindow } from "../lib/pagination.ts";
import "./pagination.css";

interface PaginationProps {
  page: number;
  totalPages: number;
  onChange: (page: number) => void;
  label?: string;
}

/** Previous, at most 7 page buttons around the current page, Next (SPEC §2, §9). */
export function Pagination({ page, totalPages, onChange, label = "Pagination" }: PaginationProps) {
  if (totalPages <= 1) return null;
  const pages = pageWindow(page, totalPages);
  return (
    <nav className="pagination" aria-label={label}>
      <button
        type="button"
        className="btn btn-secondary btn-sm"
        onClick={() => onChange(page - 1)}
        disabled={page <= 1}
      >
        Previous
      </button>
      {pages.map((n) => (
        <button
          key={n}
          type="button"
          className={`btn btn-sm pagination-page${n === page ? " btn-primary" : " btn-ghost"}`}
          aria-current={n === page ? "page" : undefined}
          aria-label={`Page ${n}`}
          onClick={() => onChange(n)}
        >
          {n}
        </button>
      ))}
      <button
        type="button"
        className="btn btn-secondary btn-sm"
        onClick={() => onChange(page + 1)}
        disabled={page >= totalPages}
      >
        Next
      </button>
    </nav>
  );
}
