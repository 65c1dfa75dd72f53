import { DESTINATION_LABELS } from "@keepsake/contracts/destination-kinds";
import type { ImportPlan } from "@keepsake/contracts/import";
import { ProgressBar } from "../../components/progress-bar.tsx";
import { formatCount, formatDate } from "../../lib/format.ts";

export type Phase =
  | { step: "choose" }
  | { step: "reading" }
  | { step: "preview"; plan: ImportPlan }
  | { step: "importing"; plan: ImportPlan }
  | { step: "stopped"; plan: ImportPlan; error: string | null }
  | { step: "done"; plan: ImportPlan };

export interface Progress {
  /** Items of this import in Drive (of those to import). */
  done: number;
  total: number;
  current: { id: string; name: string; percent: number } | null;
  finished: { id: string; name: string }[];
}

/**
 * The import's preview, then its progress (issue 31): per kind what the export holds, what
 * Keepsake has, what it copies and what the plan leaves out, with the server's verdict (issue
 * 36: worded from the same statuses the uploads obey).
 */
export function Preview(props: {
  plan: ImportPlan;
  phase: Phase;
  progress: Progress | null;
  onStart: () => void;
  onStop: () => void;
  onResume: () => void;
  onReset: () => void;
}) {
  const { plan, phase, progress } = props;
  // The server's sums and words, from the statuses the uploads obey.
  const toImport = plan.totals.to_import;
  const beyond = plan.totals.over_limit;
  const overall = progress?.total ? Math.round((progress.done / progress.total) * 100) : 0;
  return (
    <section className="card import-card" aria-label="Import preview">
      <h2 className="import-title">Export of @{plan.username}</h2>
      {plan.first_at && plan.last_at && (
        <p className="text-muted" data-testid="import-range">
          From {formatDate(plan.first_at)} to {formatDate(plan.last_at)}
        </p>
      )}
      <table className="import-summary">
        <thead>
          <tr>
            <th scope="col">In the export</th>
            <th scope="col">Total</th>
            <th scope="col">Keepsake already has</th>
            <th scope="col">To import</th>
          </tr>
        </thead>
        <tbody>
          {plan.summary.map((s) => (
            <tr key={s.kind} data-testid={`import-kind-${s.kind}`}>
              <th scope="row">{s.label}</th>
              <td>{formatCount(s.total)}</td>
              <td>{formatCount(s.already)}</td>
              <td>
                {formatCount(s.to_import)}
                {s.over_limit > 0 && (
                  <span className="text-muted">
                    {" "}
                    ({formatCount(s.over_limit)} beyond your plan)
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="import-limit">{plan.limit_note}</p>

      {phase.step === "preview" &&
        (toImport > 0 ? (
          <>
            <p data-testid="import-verdict">{plan.verdict}</p>
            <button type="button" className="btn btn-primary" onClick={props.onStart}>
              Start import ({formatCount(toImport)} {toImport === 1 ? "item" : "items"})
            </button>
          </>
        ) : (
          <p role="status" data-testid="import-verdict">
            {plan.verdict}
          </p>
        ))}

      {progress && phase.step !== "preview" && (
        <div className="import-progress">
          <p role="status" data-testid="import-status">
            {phase.step === "done"
              ? `Import complete: ${formatCount(progress.done)} of ${formatCount(progress.total)} items are in your ${DESTINATION_LABELS[plan.destination]}.${beyond > 0 ? ` ${formatCount(beyond)} ${beyond === 1 ? "item" : "items"} beyond your plan's limit ${beyond === 1 ? "was" : "were"} not imported.` : ""}`
              : `${formatCount(progress.done)} of ${formatCount(progress.total)} items imported`}
          </p>
          <ProgressBar percent={overall} label="Import progress" />
          {progress.current && phase.step === "importing" && (
            <div className="import-current">
              <span>{progress.current.name}</span>
              <ProgressBar percent={progress.current.percent} label="Current item" />
            </div>
          )}
          {progress.finished.length > 0 && (
            <ul className="import-finished" aria-label="Imported">
              {progress.finished.map((f) => (
                <li key={f.id}>✓ {f.name}</li>
              ))}
            </ul>
          )}
        </div>
      )}

      {phase.step === "importing" && (
        <button type="button" className="btn btn-secondary" onClick={props.onStop}>
          Stop
        </button>
      )}
      {phase.step === "stopped" && (
        <div className="import-stopped">
          {phase.error && (
            <p className="form-error" role="alert">
              {phase.error}
            </p>
          )}
          <p>
            What is in Drive stays there. Continue now, or choose the same export later: the import
            goes on where it stopped.
          </p>
          <button type="button" className="btn btn-primary" onClick={props.onResume}>
            Continue import
          </button>
        </div>
      )}
      {phase.step === "done" && (
        <button type="button" className="btn btn-secondary" onClick={props.onReset}>
          Import another export
        </button>
      )}
    </section>
  );
}
