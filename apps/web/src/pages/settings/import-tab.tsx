import type { ImportPlan } from "@keepsake/contracts/import";
import { ExportRefusedError } from "@keepsake/contracts/instagram-export";
import { useQueryClient } from "@tanstack/react-query";
import { type ChangeEvent, useEffect, useRef, useState } from "react";
import { ApiError, errorDetail } from "../../api/client.ts";
import { useInstagramAccounts } from "../../api/connections.ts";
import { planImport, putImportFile } from "../../api/import.ts";
import { syncKeys } from "../../api/sync.ts";
import { Spinner } from "../../components/spinner.tsx";
import { useSearchParams } from "../../lib/navigation.tsx";
import { type OpenedExport, openExport } from "./export-reader.ts";
import { type Phase, Preview, type Progress } from "./import-preview.tsx";
import "./import-tab.css";

const mimeOf = (name: string, type: "IMAGE" | "VIDEO") =>
  /\.png$/i.test(name)
    ? "image/png"
    : /\.webp$/i.test(name)
      ? "image/webp"
      : /\.mov$/i.test(name)
        ? "video/quicktime"
        : type === "VIDEO"
          ? "video/mp4"
          : "image/jpeg";

/**
 * Settings → Import (issue 31): Instagram's "Download your information" export, per connected
 * account. The ZIP is opened in this browser; its JSON goes to Keepsake for the preview, then
 * each media file goes through Keepsake straight into Drive. Choosing the same export again
 * continues where an import stopped.
 */
export function ImportTab() {
  const accounts = useInstagramAccounts();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  // Connected Accounts links here with `?account=` (each account's "Import export").
  const [accountId, setAccountId] = useState<string>(params.get("account") ?? "");
  const [phase, setPhase] = useState<Phase>({ step: "choose" });
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const opened = useRef<OpenedExport | null>(null);
  const abort = useRef<AbortController | null>(null);
  const input = useRef<HTMLInputElement | null>(null);

  const list = accounts.data?.accounts ?? [];
  const account = list.find((a) => a.id === accountId) ?? list[0];

  useEffect(
    () => () => {
      abort.current?.abort();
      void opened.current?.close();
    },
    [],
  );

  if (accounts.isPending) return <Spinner label="Loading..." />;
  if (accounts.isLoadingError) {
    return (
      <p className="form-error" role="alert">
        Could not load your Instagram accounts.
      </p>
    );
  }
  if (!account) {
    return (
      <div className="card import-card">
        <h2 className="import-title">Import from Instagram's data export</h2>
        <p>Connect an Instagram account first (Connected Accounts), then import its export here.</p>
      </div>
    );
  }

  const reset = async () => {
    abort.current?.abort();
    await opened.current?.close();
    opened.current = null;
    setProgress(null);
    setError(null);
    setPhase({ step: "choose" });
    if (input.current) input.current.value = "";
  };

  const choose = async (e: ChangeEvent<HTMLInputElement>) => {
    const parts = [...(e.target.files ?? [])];
    if (parts.length === 0) return;
    await opened.current?.close();
    opened.current = null;
    setError(null);
    setProgress(null);
    setPhase({ step: "reading" });
    try {
      const ex = await openExport(parts, account.username);
      opened.current = ex;
      const plan = await planImport(account.id, { paths: ex.paths, files: ex.files });
      setPhase({ step: "preview", plan });
    } catch (err) {
      setError(
        err instanceof ExportRefusedError || (err instanceof Error && !(err instanceof ApiError))
          ? err.message
          : errorDetail(err, "Keepsake could not read this export. Try again."),
      );
      setPhase({ step: "choose" });
      if (input.current) input.current.value = "";
    }
  };

  const start = async (plan: ImportPlan) => {
    const ex = opened.current;
    if (!ex) return;
    const todo = plan.items.filter((i) => i.status === "pending");
    const controller = new AbortController();
    abort.current = controller;
    const state: Progress = { done: 0, total: todo.length, current: null, finished: [] };
    setProgress({ ...state });
    setPhase({ step: "importing", plan });
    try {
      for (const item of todo) {
        const files = item.files.filter((f) => !f.done);
        const name = item.files[0]?.name ?? item.id;
        state.current = { id: item.id, name, percent: 0 };
        setProgress({ ...state });
        let index = 0;
        for (const f of files) {
          const blob = await ex.blob(f.uri, mimeOf(f.uri, f.media_type));
          const share = (sent: number) =>
            Math.min(
              100,
              Math.round(((index + (blob.size ? sent / blob.size : 1)) / files.length) * 100),
            );
          await putImportFile(
            item.id,
            f.key,
            blob,
            (sent) => {
              state.current = { id: item.id, name, percent: share(sent) };
              setProgress({ ...state, finished: [...state.finished] });
            },
            controller.signal,
          );
          index += 1;
        }
        state.done += 1;
        state.finished = [{ id: item.id, name }, ...state.finished].slice(0, 8);
        state.current = null;
        setProgress({ ...state, finished: [...state.finished] });
      }
      // The imported items are posts of the account now: the grid, /backups and the counts.
      void queryClient.invalidateQueries({ queryKey: syncKeys.all });
      setPhase({ step: "done", plan });
    } catch (err) {
      // What reached Drive is in the grid, /backups and the counts already.
      void queryClient.invalidateQueries({ queryKey: syncKeys.all });
      if (controller.signal.aborted) {
        setPhase({ step: "stopped", plan, error: null });
      } else {
        setPhase({
          step: "stopped",
          plan,
          error: errorDetail(
            err,
            "The import stopped. Choose Continue to resume where it stopped.",
          ),
        });
      }
    }
  };

  const resume = async () => {
    const ex = opened.current;
    if (!ex) return;
    setError(null);
    try {
      const plan = await planImport(account.id, { paths: ex.paths, files: ex.files });
      await start(plan);
    } catch (err) {
      setError(errorDetail(err, "Keepsake could not read this export. Try again."));
    }
  };

  return (
    <div className="import-tab">
      <div className="card import-card">
        <h2 className="import-title">Import from Instagram's data export</h2>
        <p className="text-muted">
          Instagram's API gives Keepsake your live posts and the last 24 hours of stories. Your
          archived stories, archived posts and the years before Keepsake are only in the export
          Instagram makes for you. Import it here: it lands in your Drive next to your backups, in
          the same folders and with the same names. Nothing is stored on our servers.
        </p>
        {list.length > 1 && (
          <label className="form-field import-account">
            <span>Instagram account</span>
            <select
              value={account.id}
              disabled={phase.step === "importing" || phase.step === "reading"}
              onChange={(e) => {
                setAccountId(e.target.value);
                void reset();
              }}
            >
              {list.map((a) => (
                <option key={a.id} value={a.id}>
                  @{a.username}
                </option>
              ))}
            </select>
          </label>
        )}
        <h3 className="import-subtitle">1. Ask Instagram for your export</h3>
        <ol className="import-steps">
          <li>
            In the Instagram app or on instagram.com, open <strong>Accounts Center</strong> →{" "}
            <strong>Your information and permissions</strong> →{" "}
            <strong>Download your information</strong>.
          </li>
          <li>
            Choose @{account.username}, <strong>Download to device</strong>, date range{" "}
            <strong>All time</strong>, format <strong>JSON</strong> (not HTML) and media quality{" "}
            <strong>High</strong>, with your media included.
          </li>
          <li>
            Instagram e-mails you when it is ready (minutes to a few days). Download the ZIP; a
            large account comes in several parts — keep them all.
          </li>
        </ol>
        <h3 className="import-subtitle">2. Choose the ZIP</h3>
        <p className="text-muted">
          It is opened in this browser: nothing is sent until you start the import. Choose every
          part of a split export at once.
        </p>
        <label className="btn btn-secondary import-choose">
          Choose export ZIP for @{account.username}
          <input
            ref={input}
            type="file"
            accept=".zip,application/zip"
            multiple
            className="visually-hidden"
            aria-label={`Export ZIP for @${account.username}`}
            disabled={phase.step === "importing" || phase.step === "reading"}
            onChange={choose}
          />
        </label>
        {phase.step === "reading" && <Spinner label="Reading the export..." />}
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </div>

      {phase.step !== "choose" && phase.step !== "reading" && (
        <Preview
          plan={phase.plan}
          phase={phase}
          progress={progress}
          onStart={() => start(phase.plan)}
          onStop={() => abort.current?.abort()}
          onResume={resume}
          onReset={reset}
        />
      )}
    </div>
  );
}
