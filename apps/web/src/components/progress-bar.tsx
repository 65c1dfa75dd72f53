/** A labelled 0–100 progress bar (the sync cards on the dashboard and the Backups screen). */
export function ProgressBar({ percent, label }: { percent: number; label: string }) {
  return (
    <div
      className="progress"
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-label={label}
    >
      <div className="progress-bar" style={{ width: `${percent}%` }} />
    </div>
  );
}
