import type { NextStep } from "@keepsake/contracts";
import { FixLink } from "../../components/fix-link.tsx";
import "./first-run.css";

/**
 * The first-run path (issue 36): until both connections exist and the first backup ran, the
 * next step and the control that does it (the connect buttons live in Settings → Connected
 * Accounts, as SPEC §2 places them; the first backup starts right here).
 */
export function FirstRunCard({
  step,
  onStartBackup,
  backupBusy,
  running,
}: {
  step: NextStep;
  onStartBackup: () => void;
  backupBusy: boolean;
  /** A backup runs on the server (the step's text says so). */
  running: boolean;
}) {
  return (
    <section className="card first-run" aria-label="Getting started" data-testid="first-run">
      <ol className="first-run-steps" aria-hidden="true">
        {[1, 2, 3].map((n) => (
          <li
            key={n}
            className={
              n < step.number ? "first-run-done" : n === step.number ? "first-run-current" : ""
            }
          >
            {n < step.number ? "✓" : n}
          </li>
        ))}
      </ol>
      <div className="first-run-body">
        <p className="first-run-title">{step.title}</p>
        <p className="first-run-text">{step.text}</p>
      </div>
      <div className="first-run-action">
        {step.fix ? (
          <FixLink fix={step.fix} />
        ) : (
          // While the first backup runs the header's button says so: no second one here.
          !running &&
          !backupBusy && (
            <button type="button" className="btn btn-primary btn-sm" onClick={onStartBackup}>
              Start your first backup
            </button>
          )
        )}
      </div>
    </section>
  );
}
